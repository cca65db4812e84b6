public import Foundation
public import HeraldWire

/// A notification the gateway accepted, as it is kept until delivered or discarded.
public struct StoredNotification: Sendable, Hashable {
    public var apnsID: UUID
    /// The delivery-log key (`apns-unique-id`).
    public var uniqueID: UUID
    public var deviceToken: DeviceToken
    /// The app's bundle id (the request's topic without its push-type suffix).
    public var bundleID: String
    /// The `apns-topic` as sent.
    public var topic: String
    public var pushType: PushType
    public var priority: Priority
    /// Seconds since 1970; 0 = deliver now or never; nil = the default storage period.
    public var expiration: Int64?
    public var collapseID: String?
    /// The JSON body exactly as received.
    public var payload: Data
    public var receivedAt: Date

    public init(
        apnsID: UUID,
        uniqueID: UUID,
        deviceToken: DeviceToken,
        bundleID: String,
        topic: String,
        pushType: PushType,
        priority: Priority,
        expiration: Int64?,
        collapseID: String?,
        payload: Data,
        receivedAt: Date
    ) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.deviceToken = deviceToken
        self.bundleID = bundleID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.receivedAt = receivedAt
    }
}
