public import Foundation
public import HeraldStore
public import HeraldWire
import Synchronization

/// A real store with faults on demand: notification inserts can be made to fail or to wait, to
/// provoke 500s and 503s and to keep requests in flight; device reads are counted. Everything else passes straight
/// through.
public final class FaultInjectingStore: Store {
    private struct Faults {
        var failWrites: StoreError.Code?
        var insertedBatchSizes: [Int] = []
        var deviceReads: [DeviceToken: Int] = [:]
    }

    public let base: any Store
    private let faults = Mutex(Faults())
    /// The inserts waiting while writes are held; nil while they are not.
    private let held = Watched<[CheckedContinuation<Void, Never>]?>(nil)

    public init(wrapping base: any Store) {
        self.base = base
    }

    /// Makes every later notification insert fail with `code` (`.unavailable`: the store cannot be reached; `.corrupt`:
    /// it answered with something unreadable), or succeed again (nil).
    public func setFailWrites(_ code: StoreError.Code?) {
        faults.withLock { $0.failWrites = code }
    }

    /// Makes notification inserts wait until ``releaseWrites()``.
    public func holdWrites() {
        held.update { if $0 == nil { $0 = [] } }
    }

    public func releaseWrites() {
        let waiting = held.update { held in
            defer { held = nil }
            return held ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    /// How many inserts are waiting on ``holdWrites()``.
    public var heldWriteCount: Int { held.value?.count ?? 0 }

    /// Waits until `count` inserts wait on ``holdWrites()``, at most 10 s; whether they do.
    @discardableResult
    public func waitForHeldWrites(_ count: Int = 1) async -> Bool {
        await held.wait { ($0?.count ?? 0) >= count }
    }

    /// How many times the device record of `token` was read so far.
    public func deviceReads(of token: DeviceToken) -> Int { faults.withLock { $0.deviceReads[token, default: 0] } }

    /// The size of each batch inserted so far, in the order the inserts were asked for.
    public var insertedBatchSizes: [Int] { faults.withLock { $0.insertedBatchSizes } }

    public func insertNotifications(_ batch: [StoredNotification]) async throws(StoreError) -> [StoredNotification] {
        faults.withLock { $0.insertedBatchSizes.append(batch.count) }
        await withCheckedContinuation { continuation in
            let wait = held.update { held in
                guard held != nil else { return false }
                held?.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
        if let code = faults.withLock({ $0.failWrites }) { throw StoreError(code, "writes are failing (test)") }
        return try await base.insertNotifications(batch)
    }

    public func saveKey(_ key: ProviderKey) async throws(StoreError) { try await base.saveKey(key) }
    public func key(teamID: String, keyID: String) async throws(StoreError) -> ProviderKey? {
        try await base.key(teamID: teamID, keyID: keyID)
    }
    public func keys() async throws(StoreError) -> [ProviderKey] { try await base.keys() }
    public func saveDevice(_ device: DeviceRecord) async throws(StoreError) { try await base.saveDevice(device) }
    public func device(_ token: DeviceToken) async throws(StoreError) -> DeviceRecord? {
        faults.withLock { $0.deviceReads[token, default: 0] += 1 }
        return try await base.device(token)
    }
    public func devices(owner: String) async throws(StoreError) -> [DeviceRecord] { try await base.devices(owner: owner) }
    public func register(
        owner: String, bundleID: String, environment: APNsEnvironment, kind: TokenKind, activityID: String?,
        applicationServerKey: Data?, at date: Date
    ) async throws(StoreError) -> DeviceRecord {
        try await base.register(
            owner: owner, bundleID: bundleID, environment: environment, kind: kind, activityID: activityID,
            applicationServerKey: applicationServerKey, at: date)
    }
    public func retireDevice(_ token: DeviceToken, as retirement: DeviceRecord.Retirement, at date: Date) async throws(StoreError) -> Bool {
        try await base.retireDevice(token, as: retirement, at: date)
    }
    public func retirements(after sequence: Int64, limit: Int) async throws(StoreError) -> [TokenRetirement] {
        try await base.retirements(after: sequence, limit: limit)
    }
    public func latestRetirement() async throws(StoreError) -> Int64 { try await base.latestRetirement() }
    public func saveLinkedDevice(_ device: LinkedDevice) async throws(StoreError) { try await base.saveLinkedDevice(device) }
    public func linkedDevices() async throws(StoreError) -> [LinkedDevice] { try await base.linkedDevices() }
    public func setStoragePolicy(_ policy: StoragePolicy, bundleID: String) async throws(StoreError) {
        try await base.setStoragePolicy(policy, bundleID: bundleID)
    }
    public func storagePolicy(bundleID: String) async throws(StoreError) -> StoragePolicy {
        try await base.storagePolicy(bundleID: bundleID)
    }
    public func apps() async throws(StoreError) -> [AppRecord] { try await base.apps() }
    public func createChannel(_ channel: BroadcastChannel, limit: Int) async throws(StoreError) -> Bool {
        try await base.createChannel(channel, limit: limit)
    }
    public func channel(id: String) async throws(StoreError) -> BroadcastChannel? { try await base.channel(id: id) }
    public func channels(bundleID: String, environment: APNsEnvironment) async throws(StoreError) -> [BroadcastChannel] {
        try await base.channels(bundleID: bundleID, environment: environment)
    }
    public func deleteChannel(id: String, at date: Date) async throws(StoreError) -> Bool { try await base.deleteChannel(id: id, at: date) }
    public func latestBroadcast(channelID: String) async throws(StoreError) -> ChannelBroadcast? {
        try await base.latestBroadcast(channelID: channelID)
    }
    public func channels(environment: APNsEnvironment, limit: Int) async throws(StoreError) -> [BroadcastChannel] {
        try await base.channels(environment: environment, limit: limit)
    }
    public func subscribe(_ subscription: ChannelSubscription) async throws(StoreError) { try await base.subscribe(subscription) }
    public func unsubscribe(deviceID: String, channelID: String) async throws(StoreError) -> Bool {
        try await base.unsubscribe(deviceID: deviceID, channelID: channelID)
    }
    public func subscriptions(deviceID: String) async throws(StoreError) -> [ChannelSubscription] {
        try await base.subscriptions(deviceID: deviceID)
    }
    public func subscriberCount(channelID: String) async throws(StoreError) -> Int { try await base.subscriberCount(channelID: channelID) }
    public func broadcastAcknowledgements(channelID: String, notificationID: Int64) async throws(StoreError) -> Int {
        try await base.broadcastAcknowledgements(channelID: channelID, notificationID: notificationID)
    }
    public func keptBroadcasts(deviceID: String, at date: Date) async throws(StoreError) -> [StoredNotification] {
        try await base.keptBroadcasts(deviceID: deviceID, at: date)
    }
    public func markBroadcastsDelivered(_ deliveries: [BroadcastDelivery]) async throws(StoreError) {
        try await base.markBroadcastsDelivered(deliveries)
    }
    public func pendingNotifications(deviceID: String, after id: Int64, limit: Int) async throws(StoreError) -> [StoredNotification] {
        try await base.pendingNotifications(deviceID: deviceID, after: id, limit: limit)
    }
    public func pendingNotificationCount(deviceID: String) async throws(StoreError) -> Int {
        try await base.pendingNotificationCount(deviceID: deviceID)
    }
    public func markDelivered(_ ids: [Int64], at date: Date) async throws(StoreError) { try await base.markDelivered(ids, at: date) }
    public func discardNotifications(_ ids: [Int64], reason: DiscardReason, at date: Date) async throws(StoreError) {
        try await base.discardNotifications(ids, reason: reason, at: date)
    }
    public func recordResponse(_ response: NotificationResponse, uniqueID: UUID, deviceID: String) async throws(StoreError) -> Bool {
        try await base.recordResponse(response, uniqueID: uniqueID, deviceID: deviceID)
    }
    public func notification(id: UUID) async throws(StoreError) -> StoredNotification? { try await base.notification(id: id) }
    public func notifications(matching query: NotificationQuery, before id: Int64?, limit: Int) async throws(StoreError) -> [StoredNotification] {
        try await base.notifications(matching: query, before: id, limit: limit)
    }
    public func notificationCount() async throws(StoreError) -> Int { try await base.notificationCount() }
    public func maintain() async throws(StoreError) { try await base.maintain() }
    public func recordFault(_ summary: String, uniqueID: UUID, at date: Date) async throws(StoreError) {
        try await base.recordFault(summary, uniqueID: uniqueID, at: date)
    }
    public func saveFaultRule(_ rule: FaultRule) async throws(StoreError) { try await base.saveFaultRule(rule) }
    public func faultRules(at now: Date) async throws(StoreError) -> [FaultRule] { try await base.faultRules(at: now) }
    public func removeFaultRule(id: String) async throws(StoreError) -> Bool { try await base.removeFaultRule(id: id) }
    public func removeFaultRules(keepingPersistent: Bool, now: Date) async throws(StoreError) -> Int {
        try await base.removeFaultRules(keepingPersistent: keepingPersistent, now: now)
    }
}
