public import Foundation

/// A linked device takes an app's broadcasts on a channel: one of its Live Activities subscribed
/// (`pushType: .channel(id)`, or `input-push-channel` in a remote start). One per device and channel, however many of
/// the device's activities are on it: the device hands each broadcast to all of them.
public struct ChannelSubscription: Sendable, Hashable {
    public var deviceID: String
    public var channelID: String
    /// The channel's app.
    public var bundleID: String
    public var subscribedAt: Date

    public init(deviceID: String, channelID: String, bundleID: String, subscribedAt: Date) {
        self.deviceID = deviceID
        self.channelID = channelID
        self.bundleID = bundleID
        self.subscribedAt = subscribedAt
    }
}

/// A device acknowledged a broadcast: the broadcast's row is shared by every subscriber, so this is marked on the
/// device's subscription (its channel's kept broadcast is not offered again), not on the row.
public struct BroadcastDelivery: Sendable, Hashable {
    public var deviceID: String
    public var channelID: String
    /// The broadcast's ``StoredNotification/id``.
    public var notificationID: Int64

    public init(deviceID: String, channelID: String, notificationID: Int64) {
        self.deviceID = deviceID
        self.channelID = channelID
        self.notificationID = notificationID
    }
}
