public import Foundation
public import HeraldWire

/// Where the gateway keeps keys, devices, apps and notifications with their delivery state.
///
/// Every conforming store must pass the conformance suite in `HeraldTesting` (`StoreConformance`).
/// Implementations are safe to call from many tasks at once and, for file-backed stores, from
/// several processes (the CLI writes keys while a gateway runs).
public protocol Store: Sendable {
    /// Adds a key or replaces the one with the same team and key id.
    func saveKey(_ key: ProviderKey) async throws(StoreError)
    func key(teamID: String, keyID: String) async throws(StoreError) -> ProviderKey?
    func keys() async throws(StoreError) -> [ProviderKey]

    /// Adds a device token or replaces the one with the same token.
    func saveDevice(_ device: DeviceRecord) async throws(StoreError)
    func device(_ token: DeviceToken) async throws(StoreError) -> DeviceRecord?
    /// The live (not retired) tokens of a linked device, of every kind.
    func devices(owner: String) async throws(StoreError) -> [DeviceRecord]
    /// The live token of `owner` for `bundleID` of this kind (and, for an activity token, this activity; for a web push
    /// subscription, this name), created with a new random token if there is none. A new web push subscription keeps
    /// `applicationServerKey`; a live one is returned as it is, whatever key it was made with.
    func register(
        owner: String, bundleID: String, environment: APNsEnvironment, kind: TokenKind, activityID: String?,
        applicationServerKey: Data?, at date: Date
    ) async throws(StoreError) -> DeviceRecord
    /// Marks a token as no longer taking pushes and discards what was pending for it (`unregistered`), numbering the
    /// retirement after every earlier one (``retirements(after:limit:)``); false when the token is unknown.
    func retireDevice(_ token: DeviceToken, as retirement: DeviceRecord.Retirement, at date: Date) async throws(StoreError) -> Bool
    /// The retirements numbered above `sequence`, in their order, at most `limit`. Retirements commit in the order of
    /// their numbers, so a reader that goes on from the last number it read misses none.
    func retirements(after sequence: Int64, limit: Int) async throws(StoreError) -> [TokenRetirement]
    /// The number of the latest retirement; 0 when there is none.
    func latestRetirement() async throws(StoreError) -> Int64

    /// Adds a linked device or updates its last-seen time.
    func saveLinkedDevice(_ device: LinkedDevice) async throws(StoreError)
    func linkedDevices() async throws(StoreError) -> [LinkedDevice]

    /// Sets the storage policy of an app.
    func setStoragePolicy(_ policy: StoragePolicy, bundleID: String) async throws(StoreError)
    /// The app's storage policy: ``StoragePolicy/latest`` unless one was set.
    func storagePolicy(bundleID: String) async throws(StoreError) -> StoragePolicy
    /// Every app with a policy or a registered device.
    func apps() async throws(StoreError) -> [AppRecord]

    /// Adds `channel` unless its app already has `limit` live channels in its environment (then false). Two nodes of a
    /// cluster creating the app's last channels at the same moment may each pass the count.
    func createChannel(_ channel: BroadcastChannel, limit: Int) async throws(StoreError) -> Bool
    /// The channel with this id, deleted or not.
    func channel(id: String) async throws(StoreError) -> BroadcastChannel?
    /// An app's live channels in one environment, oldest first.
    func channels(bundleID: String, environment: APNsEnvironment) async throws(StoreError) -> [BroadcastChannel]
    /// Every app's live channels in one environment, by app, oldest first, at most `limit`.
    func channels(environment: APNsEnvironment, limit: Int) async throws(StoreError) -> [BroadcastChannel]
    /// Marks a live channel deleted at `date`; false when there is no such live channel.
    func deleteChannel(id: String, at date: Date) async throws(StoreError) -> Bool
    /// The channel's latest kept broadcast, expired or not: ``insertNotifications(_:)`` keeps a broadcast with a
    /// ``StoredNotification/keptUntil`` as its channel's latest, in the same transaction, while the channel is live.
    func latestBroadcast(channelID: String) async throws(StoreError) -> ChannelBroadcast?

    /// Adds the subscription, or leaves the one there (with what it was marked delivered).
    func subscribe(_ subscription: ChannelSubscription) async throws(StoreError)
    /// False when there was no such subscription.
    func unsubscribe(deviceID: String, channelID: String) async throws(StoreError) -> Bool
    /// A device's subscriptions, by channel id.
    func subscriptions(deviceID: String) async throws(StoreError) -> [ChannelSubscription]
    /// How many devices take the channel's broadcasts.
    func subscriberCount(channelID: String) async throws(StoreError) -> Int
    /// How many of the channel's subscribers acknowledged the broadcast `notificationID` or a later one.
    func broadcastAcknowledgements(channelID: String, notificationID: Int64) async throws(StoreError) -> Int
    /// The kept broadcasts (``latestBroadcast(channelID:)``) of the device's live subscribed channels that have not
    /// expired at `date` and that the device has not acknowledged, as rows, oldest first.
    func keptBroadcasts(deviceID: String, at date: Date) async throws(StoreError) -> [StoredNotification]
    /// Marks broadcasts acknowledged on their subscriptions. Need not reach the disk before it returns (as
    /// ``markDelivered(_:at:)``): a lost mark has a kept broadcast offered again, and the device drops it.
    func markBroadcastsDelivered(_ deliveries: [BroadcastDelivery]) async throws(StoreError)

    /// Commits a batch in one transaction, applying each offline notification's policy (expiration 0,
    /// collapse id, latest, the cap of all) in the same transaction. All are durable when this returns;
    /// the result is the batch with ids and delivery states assigned, in order.
    func insertNotifications(_ batch: [StoredNotification]) async throws(StoreError) -> [StoredNotification]
    /// ``insertNotifications(_:)`` for a caller that must not wait on a task: `completion` runs on a thread of the
    /// store's once the batch is committed or has failed.
    func insertNotifications(
        _ batch: [StoredNotification], completion: @escaping @Sendable (Result<[StoredNotification], StoreError>) -> Void
    )
    /// Pending notifications of a linked device with ids above `id`, oldest first.
    func pendingNotifications(deviceID: String, after id: Int64, limit: Int) async throws(StoreError) -> [StoredNotification]
    func pendingNotificationCount(deviceID: String) async throws(StoreError) -> Int
    /// Marks pending notifications as delivered (the device acknowledged them).
    ///
    /// This and ``discardNotifications(_:reason:at:)`` need not reach the disk before they return: a crash of
    /// the machine may lose the latest of them, and those notifications are pending again (a device drops
    /// one it already has; an expired one is found expired again).
    func markDelivered(_ ids: [Int64], at date: Date) async throws(StoreError)
    /// Marks pending notifications as discarded.
    func discardNotifications(_ ids: [Int64], reason: DiscardReason, at date: Date) async throws(StoreError)
    /// Records the person's response to the notification `uniqueID` delivered to `deviceID` (a later one replaces
    /// it); false when no such notification went to that device.
    func recordResponse(_ response: NotificationResponse, uniqueID: UUID, deviceID: String) async throws(StoreError) -> Bool
    /// Marks the notification `uniqueID` as taken by a fault rule (docs/faults.md): its delivery log entry says
    /// `summary` (``FaultRule/summary``).
    func recordFault(_ summary: String, uniqueID: UUID, at date: Date) async throws(StoreError)
    /// The latest notification with this `apns-id` or `apns-unique-id`.
    func notification(id: UUID) async throws(StoreError) -> StoredNotification?
    /// A page of the delivery log: the notifications `query` matches whose ids are below `id` (every one when nil),
    /// newest (highest id) first, at most `limit`. The next page starts before the last one's id.
    ///
    /// Each page must cost about the same however many notifications the store holds (the SQLite store walks
    /// indexes only; a million notifications answer in milliseconds).
    func notifications(matching query: NotificationQuery, before id: Int64?, limit: Int) async throws(StoreError) -> [StoredNotification]
    func notificationCount() async throws(StoreError) -> Int

    // Fault rules (docs/faults.md)

    /// Adds a rule, or replaces the one with its id.
    func saveFaultRule(_ rule: FaultRule) async throws(StoreError)
    /// The rules not expired at `now`, oldest first.
    func faultRules(at now: Date) async throws(StoreError) -> [FaultRule]
    /// Removes a rule; false when there is none with this id.
    func removeFaultRule(id: String) async throws(StoreError) -> Bool
    /// Removes every rule (`keepingPersistent`: those not marked persistent, as a gateway's start does, and those
    /// expired); how many went.
    func removeFaultRules(keepingPersistent: Bool, now: Date) async throws(StoreError) -> Int

    /// Housekeeping the gateway runs every few hundred milliseconds, off the path of requests
    /// (SQLite: checkpoint the write-ahead log, so commits never stall doing it).
    func maintain() async throws(StoreError)
}

extension Store {
    public func maintain() async throws(StoreError) {}

    /// The app's own live token, created if there is none.
    public func register(owner: String, bundleID: String, environment: APNsEnvironment, at date: Date) async throws(StoreError) -> DeviceRecord {
        try await register(owner: owner, bundleID: bundleID, environment: environment, kind: .app, activityID: nil, at: date)
    }

    /// A token of `kind` that is not a web push subscription's.
    public func register(
        owner: String, bundleID: String, environment: APNsEnvironment, kind: TokenKind, activityID: String?, at date: Date
    ) async throws(StoreError) -> DeviceRecord {
        try await register(
            owner: owner, bundleID: bundleID, environment: environment, kind: kind, activityID: activityID, applicationServerKey: nil,
            at: date)
    }
}

/// A failure of the store, converted once at the store boundary.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unavailable, busy, corrupt, conflict, full, readOnly
        }
        private let value: Value

        /// The store could not be opened or written (disk full, locked, unreachable).
        public static let unavailable = Code(value: .unavailable)
        /// Another process held the store past the time a write may wait; a retry may succeed.
        public static let busy = Code(value: .busy)
        /// Stored data could not be read back.
        public static let corrupt = Code(value: .corrupt)
        /// The write conflicts with what is stored.
        public static let conflict = Code(value: .conflict)
        /// The disk holding the store has no space left; writes succeed again once some is freed.
        public static let full = Code(value: .full)
        /// The store's files or directory cannot be written (a read-only filesystem); reads still work.
        public static let readOnly = Code(value: .readOnly)

        public var description: String { "\(value)" }
    }

    public var code: Code
    public var message: String
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying { return "\(message) (\(code)): \(underlying)" }
        return "\(message) (\(code))"
    }
}

extension Store {
    /// Runs the async form in a task; a store with a thread of its own for writes does better.
    public func insertNotifications(
        _ batch: [StoredNotification], completion: @escaping @Sendable (Result<[StoredNotification], StoreError>) -> Void
    ) {
        Task {
            do throws(StoreError) {
                completion(.success(try await insertNotifications(batch)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
