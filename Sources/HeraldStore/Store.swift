public import Foundation
public import HeraldWire

/// Where the gateway keeps keys, devices and notifications.
///
/// Every conforming store must pass the conformance suite in `HeraldTesting` (`StoreConformance`).
/// Implementations are safe to call from many tasks at once and, for file-backed stores, from
/// several processes (the CLI writes keys while a gateway runs).
public protocol Store: Sendable {
    /// Adds a key or replaces the one with the same team and key id.
    func saveKey(_ key: ProviderKey) async throws(StoreError)
    func key(teamID: String, keyID: String) async throws(StoreError) -> ProviderKey?
    func keys() async throws(StoreError) -> [ProviderKey]

    /// Adds a device or replaces the one with the same token.
    func saveDevice(_ device: DeviceRecord) async throws(StoreError)
    func device(_ token: DeviceToken) async throws(StoreError) -> DeviceRecord?
    /// Marks a device as no longer taking pushes; false when the token is unknown.
    func retireDevice(_ token: DeviceToken, as retirement: DeviceRecord.Retirement, at date: Date) async throws(StoreError) -> Bool

    /// Commits a batch of notifications in one transaction: all are durable when this returns.
    func insertNotifications(_ batch: [StoredNotification]) async throws(StoreError)
    /// The notification with this `apns-id` or `apns-unique-id`.
    func notification(id: UUID) async throws(StoreError) -> StoredNotification?
    func notificationCount() async throws(StoreError) -> Int

    /// Housekeeping the gateway runs every few hundred milliseconds, off the path of requests
    /// (SQLite: checkpoint the write-ahead log, so commits never stall doing it).
    func maintain() async throws(StoreError)
}

extension Store {
    public func maintain() async throws(StoreError) {}
}

/// A failure of the store, converted once at the store boundary.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unavailable, corrupt, conflict
        }
        private let value: Value

        /// The store could not be opened or written (disk full, locked, unreachable).
        public static let unavailable = Code(value: .unavailable)
        /// Stored data could not be read back.
        public static let corrupt = Code(value: .corrupt)
        /// The write conflicts with what is stored.
        public static let conflict = Code(value: .conflict)

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
