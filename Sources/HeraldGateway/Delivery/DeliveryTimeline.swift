public import Foundation
public import HeraldStore
public import HeraldWire

/// A notification's timeline as the delivery log shows it: each step with its time, a `reason` a script can match
/// and a `detail` a developer reads. The one place these words are made: the console's delivery log shows them, and the
/// live events (``DeliveryEvents``) take their steps from here too.
public enum DeliveryTimeline {
    /// The notification's fields, its `state` and its `timeline`; `logID` is its place in the log (the `before` of
    /// the next page).
    ///
    /// ```json
    /// {"logID":42,"apnsID":"…","uniqueID":"…","deviceToken":"…","topic":"com.example.app","pushType":"alert",
    ///  "state":"discarded","timeline":[{"event":"accepted","at":"…","detail":"…"},
    ///  {"event":"stored","at":"…","reason":"offline","detail":"…"},
    ///  {"event":"discarded","at":"…","reason":"coalesced","replacedBy":"collapse-id","detail":"…"}], …}
    /// ```
    public static func timeline(of notification: StoredNotification) -> JSONValue {
        var fields: [String: JSONValue] = [
            "apnsID": .string(APNsID.format(notification.apnsID)),
            "uniqueID": .string(APNsID.format(notification.uniqueID)),
            "topic": .string(notification.topic),
            "bundleID": .string(notification.bundleID),
            "deviceToken": .string(notification.deviceToken.hex),
            "pushType": .string(notification.pushType.rawValue),
            "priority": .integer(Int64(notification.priority.rawValue)),
            "state": .string(notification.delivery.state.rawValue),
            "timeline": .array(events(of: notification)),
        ]
        if let id = notification.id { fields["logID"] = .integer(id) }
        if let deviceID = notification.deviceID { fields["deviceID"] = .string(deviceID) }
        if let channelID = notification.channelID { fields["channelID"] = .string(channelID) }
        if let collapseID = notification.collapseID { fields["collapseID"] = .string(collapseID) }
        if let expiration = notification.expiration { fields["expiration"] = .integer(expiration) }
        if let policy = notification.offlinePolicy { fields["storagePolicy"] = policyJSON(policy) }
        if let webPush = notification.webPush {
            var details: [String: JSONValue] = [
                "urgency": .string(webPush.urgency.rawValue), "ttl": .integer(webPush.ttl), "size": .integer(Int64(notification.payload.count)),
            ]
            if let subject = webPush.subject { details["subject"] = .string(subject) }
            fields["webPush"] = .object(details)
        }
        return .object(fields)
    }

    /// The steps so far, oldest first: accepted; stored (and why); delivered; discarded (and why); what the person did.
    /// A request a fault rule took has its own: `faulted`, alone when the rule answered for it.
    public static func events(of notification: StoredNotification) -> [JSONValue] {
        let delivery = notification.delivery
        // A request a fault rule took and answered for it (docs/faults.md): its one step says what the rule did.
        if delivery.discardReason == .faulted {
            let summary = notification.response.flatMap { $0.action == NotificationResponse.faulted ? $0.text : nil } ?? "a fault rule took it"
            return [
                step(
                    "faulted", notification.receivedAt, reason: "fault",
                    detail: "Taken by a fault rule: \(summary). Never delivered.", extra: ["text": .string(summary)])
            ]
        }
        let accepted =
            notification.webPush == nil
            ? "Accepted: answered 200 to the provider and committed to the store."
            : "Accepted: answered 201 to the sender (VAPID \(notification.webPush?.subject ?? "sub missing")) and committed to the store."
        var events = [step("accepted", notification.receivedAt, detail: accepted)]
        if let storedAt = delivery.storedAt {
            events.append(stored(notification, at: storedAt))
        }
        if let deliveredAt = delivery.deliveredAt {
            events.append(step("delivered", deliveredAt, detail: "Delivered: the device acknowledged it."))
        }
        if let discardedAt = delivery.discardedAt {
            events.append(discarded(notification, at: discardedAt, reason: delivery.discardReason ?? DiscardReason(rawValue: "unknown")))
        }
        if let response = notification.response {
            events.append(responded(response))
        }
        return events
    }

    /// Kept for a device that could not take it: an offline device (under its app's policy), or a virtual one.
    private static func stored(_ notification: StoredNotification, at date: Date) -> JSONValue {
        if let channelID = notification.channelID {
            return step(
                "stored", date, reason: "broadcast",
                detail: "A broadcast on channel \(channelID): one entry for all its subscribers, handed to each one online when it "
                    + "was committed; a channel that keeps its latest message offers it to devices that come back or subscribe later. "
                    + "Each device's acknowledgement is kept on its subscription, not here.")
        }
        guard notification.deviceID != nil || notification.webPush == nil else {
            return step(
                "stored", date, reason: "virtual",
                detail: "Kept for the log: the subscription is a virtual subscriber's (from herald webpush subscribe), which never "
                    + "connects; herald webpush show and this page decrypt it with the keys it kept.")
        }
        guard notification.deviceID != nil else {
            return step(
                "stored", date, reason: "virtual",
                detail: "Kept for the log: the token belongs to a virtual device (from herald tokens issue), which never connects, "
                    + "so it is never delivered.")
        }
        let policy = notification.offlinePolicy.map { " under \(notification.bundleID)'s storage policy, \(words(for: $0))" } ?? ""
        return step(
            "stored", date, reason: "offline",
            detail: "The device was offline: kept\(policy), until the device connects or the notification expires.")
    }

    /// Why it will never be delivered, in words.
    private static func discarded(_ notification: StoredNotification, at date: Date, reason: DiscardReason) -> JSONValue {
        var extra: [String: JSONValue] = [:]
        let detail: String
        switch reason {
        case .coalesced where notification.webPush != nil:
            extra["replacedBy"] = .string("topic")
            detail = "Replaced by a newer message to the same subscription with the same Topic (\(notification.collapseID ?? "")), as RFC 8030 says."
        case .coalesced:
            // Whichever rule replaced it is not stored; its own policy and collapse id say which could have.
            switch (notification.offlinePolicy?.kind, notification.collapseID) {
            case (.all?, let collapseID?):
                extra["replacedBy"] = .string("collapse-id")
                detail = "Replaced by a newer notification with the same collapse id (\(collapseID)) while the device was offline."
            case (.some, _):
                extra["replacedBy"] = .string("latest-policy")
                detail =
                    "Replaced by a newer notification: \(notification.bundleID)'s storage policy is latest, which keeps only the newest "
                    + "notification for an offline device, as APNs does."
            case (nil, _):
                detail =
                    "Replaced by a newer notification stored for the device while it was offline (the device had not "
                    + "acknowledged this one)."
            }
        case .expired:
            if notification.expiration == 0 {
                detail = "Expired: apns-expiration 0 means deliver now or never, and the device was offline."
            } else if let expiration = notification.expiration {
                let deadline = timestamp(Date(timeIntervalSince1970: Double(expiration)))
                detail = "Expired: its apns-expiration (\(deadline)) passed before the device took it."
            } else {
                let days = Int(StoredNotification.defaultStoragePeriod / 86_400)
                detail = "Expired: without apns-expiration it was kept for \(days) days, and the device did not take it."
            }
        case .unregistered:
            detail =
                "Discarded: its token was retired (the app was unregistered from the device) before the device took it; "
                + "the provider's later notifications to the token are refused with 410."
        case .overflow:
            let cap = notification.offlinePolicy.map { " (\($0.cap))" } ?? ""
            detail =
                "Discarded to make room: \(notification.bundleID)'s storage policy keeps an offline device a limited number "
                + "of notifications\(cap), and newer ones pushed out this, the oldest."
        default:
            detail = "Discarded (\(reason.rawValue))."
        }
        return step("discarded", date, reason: reason.rawValue, detail: detail, extra: extra)
    }

    /// A storage policy in words.
    private static func words(for policy: StoragePolicy) -> String {
        switch policy.kind {
        case .latest: "latest (only the newest notification is kept, as APNs does)"
        case .all: "all (up to \(policy.cap) are kept; past that the oldest is dropped)"
        }
    }

    /// What the person did, as the device reported it.
    private static func responded(_ response: NotificationResponse) -> JSONValue {
        if response.action == NotificationResponse.faulted {
            let summary = response.text ?? "a fault rule took it"
            return step(
                "faulted", response.at, reason: "fault", detail: "Taken by a fault rule: \(summary); then handled as usual.",
                extra: ["text": .string(summary)])
        }
        if response.action == NotificationResponse.droppedByDevice {
            let why = response.text ?? "no reason given"
            return step(
                "dropped", response.at, reason: "device", detail: "Dropped by the device after it arrived, as iOS drops it: \(why).",
                extra: ["text": .string(why)])
        }
        var extra: [String: JSONValue] = ["action": .string(response.action)]
        if let text = response.text { extra["text"] = .string(text) }
        let detail =
            switch response.action {
            case "com.apple.UNNotificationDefaultActionIdentifier": "Opened on the device."
            case "com.apple.UNNotificationDismissActionIdentifier": "Dismissed on the device."
            default: response.text.map { "Answered with \(response.action) on the device: “\($0)”." } ?? "Chose \(response.action) on the device."
            }
        return step("responded", response.at, detail: detail, extra: extra)
    }

    private static func step(
        _ name: String, _ date: Date, reason: String? = nil, detail: String, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var fields: [String: JSONValue] = ["event": .string(name), "at": .string(timestamp(date)), "detail": .string(detail)]
        if let reason { fields["reason"] = .string(reason) }
        return .object(fields.merging(extra) { old, _ in old })
    }

    /// A storage policy as the admin API writes it: `{"kind":"all","cap":100}` or `{"kind":"latest"}`.
    public static func policyJSON(_ policy: StoragePolicy) -> JSONValue {
        policy.kind == .all
            ? .object(["kind": .string("all"), "cap": .integer(Int64(policy.cap))])
            : .object(["kind": .string("latest")])
    }

    /// A time as the admin API and the events write it: ISO 8601 with milliseconds, in UTC.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
