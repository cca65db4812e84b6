public import Foundation

/// A notification as the gateway hands it to a device over the device link.
public struct LinkNotification: Sendable, Hashable {
    public var apnsID: UUID
    /// The gateway's id for this delivery; the device acknowledges with it.
    public var uniqueID: UUID
    /// The `apns-topic` as the provider sent it.
    public var topic: String
    /// The app's bundle id.
    public var bundleID: String
    public var deviceToken: String
    public var pushType: PushType
    public var priority: Priority
    public var collapseID: String?
    public var expiration: Int64?
    /// When the gateway accepted it, in milliseconds since 1970.
    public var receivedAt: Int64
    /// The provider's JSON payload, unchanged.
    public var payload: Data
    /// The channel of a broadcast (then ``deviceToken`` is the channel's, not this device's).
    public var channelID: String?

    public init(
        apnsID: UUID,
        uniqueID: UUID,
        topic: String,
        bundleID: String,
        deviceToken: String,
        pushType: PushType,
        priority: Priority,
        collapseID: String?,
        expiration: Int64?,
        receivedAt: Int64,
        payload: Data,
        channelID: String? = nil
    ) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.topic = topic
        self.bundleID = bundleID
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
        self.receivedAt = receivedAt
        self.payload = payload
        self.channelID = channelID
    }

    /// The identifier of the request on the device: the collapse id, else the apns-id (as iOS does).
    public var requestIdentifier: String {
        collapseID ?? APNsID.format(apnsID)
    }
}
