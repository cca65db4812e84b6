public import Foundation
public import HeraldWire

/// A notification the gateway accepted, as it is kept until delivered or discarded.
public struct StoredNotification: Sendable, Hashable {
    /// The store's sequence number, assigned at commit in commit order; nil before.
    public var id: Int64?
    public var apnsID: UUID
    /// The delivery-log key (`apns-unique-id`).
    public var uniqueID: UUID
    public var deviceToken: DeviceToken
    /// The linked device the token belongs to; nil for a virtual device.
    public var deviceID: String?
    /// The app's bundle id (the request's topic without its push-type suffix).
    public var bundleID: String
    /// The `apns-topic` as sent.
    public var topic: String
    public var pushType: PushType
    public var priority: Priority
    /// Seconds since 1970; 0 = deliver now or never; nil = the default storage period.
    public var expiration: Int64?
    public var collapseID: String?
    /// The JSON body exactly as received; a Web Push message's encrypted body.
    public var payload: Data
    public var receivedAt: Date
    /// The policy it is kept under because its device was offline when it was accepted; nil when the
    /// device was online (it is pushed at once) or is virtual.
    public var offlinePolicy: StoragePolicy?
    public var delivery: Delivery
    /// What the person did with it on the device, when the device reported it (the browser device does).
    public var response: NotificationResponse?
    /// The channel of a broadcast: one row for every subscribed device (``deviceID`` is nil, ``deviceToken`` is the
    /// channel id's 16 bytes).
    public var channelID: String?
    /// For a broadcast to a channel that keeps its most recent message: until when it is kept for devices that subscribe
    /// or come back. Written with the row; not read back (``ChannelBroadcast`` holds it).
    public var keptUntil: Date?
    /// A Web Push message's urgency, TTL and sender (``PushType/webPush``); nil for APNs notifications.
    public var webPush: WebPushDetails?

    public init(
        id: Int64? = nil,
        apnsID: UUID,
        uniqueID: UUID,
        deviceToken: DeviceToken,
        deviceID: String? = nil,
        bundleID: String,
        topic: String,
        pushType: PushType,
        priority: Priority,
        expiration: Int64?,
        collapseID: String?,
        payload: Data,
        receivedAt: Date,
        offlinePolicy: StoragePolicy? = nil,
        delivery: Delivery = Delivery(),
        response: NotificationResponse? = nil,
        channelID: String? = nil,
        keptUntil: Date? = nil,
        webPush: WebPushDetails? = nil
    ) {
        self.id = id
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.deviceToken = deviceToken
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.receivedAt = receivedAt
        self.offlinePolicy = offlinePolicy
        self.delivery = delivery
        self.response = response
        self.channelID = channelID
        self.keptUntil = keptUntil
        self.webPush = webPush
    }

    /// True when `apns-expiration` has passed at `now` (0 counts as passed once it was tried).
    public func isExpired(at now: Date) -> Bool {
        guard let expiration else {
            return now.timeIntervalSince(receivedAt) > Self.defaultStoragePeriod
        }
        return expiration == 0 || Double(expiration) < now.timeIntervalSince1970
    }

    /// How long a notification without `apns-expiration` is kept for an offline device (APNs: 30 days).
    public static let defaultStoragePeriod: TimeInterval = 30 * 24 * 3600
}

/// A person's response to a delivered notification, as the device reported it; or the device's word that it dropped
/// it (``droppedByDevice``, with the reason in ``text``); or the gateway's, that a fault rule took it (``faulted``).
public struct NotificationResponse: Sendable, Hashable {
    /// The ``action`` of a notification the device received and dropped, as iOS drops some Live Activity pushes.
    public static let droppedByDevice = "herald.dropped"
    /// The ``action`` of a request a fault rule took (docs/faults.md), with what the rule did in ``text``.
    public static let faulted = "herald.faulted"

    /// The action's identifier: one of the category's, or UNNotificationDefaultActionIdentifier (opened) or
    /// UNNotificationDismissActionIdentifier (dismissed).
    public var action: String
    /// The typed reply of a text-input action.
    public var text: String?
    public var at: Date

    public init(action: String, text: String? = nil, at: Date) {
        self.action = action
        self.text = text
        self.at = at
    }
}
