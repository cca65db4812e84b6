public import Foundation
public import HeraldWire

/// A broadcast channel (iOS 18): an app's channel that Live Activities subscribe to, created and deleted through the
/// channel management API. Its id is what providers and devices name it by; a deleted channel keeps its record, so its
/// id is never handed out again and a broadcast to it can be told from one to an id that never existed.
public struct BroadcastChannel: Sendable, Hashable {
    /// Base64 of 16 random bytes: 24 characters, as the ids APNs hands out.
    public var id: String
    public var bundleID: String
    public var environment: APNsEnvironment
    public var storagePolicy: ChannelStoragePolicy
    public var createdAt: Date
    public var deletedAt: Date?

    public init(
        id: String = BroadcastChannel.newID(), bundleID: String, environment: APNsEnvironment, storagePolicy: ChannelStoragePolicy, createdAt: Date,
        deletedAt: Date? = nil
    ) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
        self.deletedAt = deletedAt
    }

    /// A new random channel id.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// APNs' limit of channels per app in each environment.
    public static let limitPerApp = 10_000
}

/// A broadcast a channel keeps for devices that come back (storage policy 1): the channel's latest, until it expires.
public struct ChannelBroadcast: Sendable, Hashable {
    public var channelID: String
    /// The broadcast's row (``StoredNotification/id``); nil for one kept before broadcasts had rows.
    public var notificationID: Int64?
    /// The key of the delivery log (`apns-unique-id`).
    public var uniqueID: UUID
    public var payload: Data
    public var priority: Int
    /// When it stops being delivered (`apns-expiration`).
    public var expiresAt: Date
    public var receivedAt: Date

    public init(
        channelID: String, notificationID: Int64? = nil, uniqueID: UUID, payload: Data, priority: Int, expiresAt: Date, receivedAt: Date
    ) {
        self.channelID = channelID
        self.notificationID = notificationID
        self.uniqueID = uniqueID
        self.payload = payload
        self.priority = priority
        self.expiresAt = expiresAt
        self.receivedAt = receivedAt
    }
}

extension BroadcastChannel {
    /// The device token a broadcast's row carries: the channel id's 16 bytes (never one of a device's 32), so the delivery
    /// log can name the channel where it names a device. Nil for an id that is not base64 of 16 bytes.
    public static func token(forChannel id: String) -> DeviceToken? {
        guard let bytes = Data(base64Encoded: id), bytes.count == 16 else { return nil }
        return DeviceToken(bytes: Array(bytes))
    }
}
