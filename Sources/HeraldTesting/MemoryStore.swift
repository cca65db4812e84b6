public import Foundation
public import HeraldStore
public import HeraldWire
import Synchronization

/// A store in memory, for tests that isolate the gateway from the disk. It can be told to fail
/// writes or hold them, to provoke 500s and to keep requests in flight.
public final class MemoryStore: Store {
    private struct State {
        var keys: [String: ProviderKey] = [:]
        var devices: [DeviceToken: DeviceRecord] = [:]
        var notifications: [StoredNotification] = []
        var failWrites = false
        var held: [CheckedContinuation<Void, Never>]?
    }

    private let state = Mutex(State())

    public init() {}

    /// Makes every later notification insert fail (true) or succeed again (false).
    public func setFailWrites(_ fail: Bool) {
        state.withLock { $0.failWrites = fail }
    }

    /// Makes notification inserts wait until ``releaseWrites()``.
    public func holdWrites() {
        state.withLock { if $0.held == nil { $0.held = [] } }
    }

    public func releaseWrites() {
        let waiting = state.withLock { state in
            defer { state.held = nil }
            return state.held ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    /// How many inserts are waiting on ``holdWrites()``.
    public var heldWriteCount: Int { state.withLock { $0.held?.count ?? 0 } }

    public var notifications: [StoredNotification] { state.withLock { $0.notifications } }

    private static func name(_ teamID: String, _ keyID: String) -> String { teamID + "/" + keyID }

    public func saveKey(_ key: ProviderKey) async throws(StoreError) {
        state.withLock { $0.keys[Self.name(key.teamID, key.keyID)] = key }
    }

    public func key(teamID: String, keyID: String) async throws(StoreError) -> ProviderKey? {
        state.withLock { $0.keys[Self.name(teamID, keyID)] }
    }

    public func keys() async throws(StoreError) -> [ProviderKey] {
        state.withLock { $0.keys.values.sorted { ($0.teamID, $0.keyID) < ($1.teamID, $1.keyID) } }
    }

    public func saveDevice(_ device: DeviceRecord) async throws(StoreError) {
        state.withLock { $0.devices[device.token] = device }
    }

    public func device(_ token: DeviceToken) async throws(StoreError) -> DeviceRecord? {
        state.withLock { $0.devices[token] }
    }

    public func retireDevice(_ token: DeviceToken, as retirement: DeviceRecord.Retirement, at date: Date) async throws(StoreError) -> Bool {
        state.withLock { state in
            guard state.devices[token] != nil else { return false }
            state.devices[token]?.retiredAt = date
            state.devices[token]?.retirement = retirement
            return true
        }
    }

    public func insertNotifications(_ batch: [StoredNotification]) async throws(StoreError) {
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state in
                guard state.held != nil else { return false }
                state.held?.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
        try state.withLock { (state) throws(StoreError) in
            if state.failWrites { throw StoreError(.unavailable, "writes are failing (test)") }
            state.notifications.append(contentsOf: batch)
        }
    }

    public func notification(id: UUID) async throws(StoreError) -> StoredNotification? {
        state.withLock { state in
            state.notifications.last { $0.apnsID == id || $0.uniqueID == id }
        }
    }

    public func notificationCount() async throws(StoreError) -> Int {
        state.withLock { $0.notifications.count }
    }
}
