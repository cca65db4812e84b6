import Foundation
import HeraldDevice
import HeraldWire
import Synchronization
import UserNotifications
import UserNotificationsUI

/// Says what happens on a device besides its notifications (which its presenters show): JSON lines for scripts,
/// or sentences for people.
final class DevicePrinter: Sendable {
    private let json: Bool
    /// Tokens already announced, so a reconnect does not repeat them.
    private let announced = Mutex<[String: String]>([:])

    init(json: Bool) {
        self.json = json
    }

    func show(_ event: DeviceDaemonEvent) {
        switch event {
        case .listening(let socket):
            if !json { warn("apps reach this device at \(socket)") }
        case .registered(let topic, let token):
            let isNew = announced.withLock { announced in
                defer { announced[topic] = token }
                return announced[topic] != token
            }
            guard isNew else { return }
            if json {
                emit(["event": .string("registered"), "topic": .string(topic), "deviceToken": .string(token)])
            } else {
                printNow("registered \(topic): device token \(token)")
            }
        case .unregistered(let topic, let token):
            if json {
                emit(["event": .string("unregistered"), "topic": .string(topic), "deviceToken": .string(token)])
            } else {
                printNow("unregistered \(topic) (\(token))")
            }
        case .background(let apnsID, let bundleID, let payload):
            if json {
                emit([
                    "event": .string("background"), "apnsID": .string(apnsID), "topic": .string(bundleID),
                    "userInfo": (try? JSONValue.parse(payload)) ?? .null,
                ])
            } else {
                printNow("background push \(apnsID) for \(bundleID): handed to the app, not shown")
            }
        case .serviceExtension(let apnsID, let bundleID, let outcome):
            if json {
                emit(["event": .string("serviceExtension"), "apnsID": .string(apnsID), "topic": .string(bundleID), "outcome": .string(outcome)])
            } else {
                warn("service extension of \(bundleID) for \(apnsID): \(outcome)")
            }
        case .launched(let bundleID, let pid, let reason):
            if json {
                emit(["event": .string("launched"), "topic": .string(bundleID), "pid": .integer(Int64(pid)), "reason": .string(reason)])
            } else {
                warn("launched \(bundleID) (pid \(pid)) for a \(reason)")
            }
        case .notificationCenter(let address):
            if json {
                emit(["event": .string("notificationCenter"), "url": .string(address.absoluteString)])
            } else {
                printNow("notification center: \(address.absoluteString)")
            }
        case .liveActivityToken(let message):
            showLiveActivityToken(message)
        case .activity(let change, let view):
            showActivity(change, view: view)
        case .activityPushDropped(let apnsID, let bundleID, let reason):
            if json {
                emit(["event": .string("activityDropped"), "apnsID": .string(apnsID), "topic": .string(bundleID), "reason": .string(reason)])
            } else {
                warn("Live Activity push \(apnsID) for \(bundleID) dropped: \(reason)")
            }
        case .unifiedPush(let event):
            showUnifiedPush(event)
        case .refused(let reason, let message):
            warn("the gateway refused: \(reason): \(message)")
        case .linkClosed(let reason):
            warn("link to the gateway closed (\(reason)); reconnecting")
        case .focus(let status):
            showFocus(status)
        case .problem(let message):
            warn(message)
        }
    }

    /// `{"event": "focus", "on": true, "name": "Work", "reason": "manual", "until": "…"}`, or `"on": false`.
    private func showFocus(_ status: Focus.Status?) {
        guard json else { return printNow("Focus \(status?.name ?? ""): \(DeviceFocus.describe(status?.reason))") }
        var fields: [String: JSONValue] = ["event": .string("focus"), "on": .bool(status != nil)]
        if let status {
            fields["name"] = .string(status.name)
            switch status.reason {
            case .manual(let until):
                fields["reason"] = .string("manual")
                if let until { fields["until"] = .string(until.ISO8601Format()) }
            case .schedule: fields["reason"] = .string("schedule")
            case .desktop: fields["reason"] = .string("desktop")
            }
        }
        emit(fields)
    }

    /// A push-to-start or activity token given or retired, or a channel subscribed or left.
    private func showLiveActivityToken(_ message: DeviceLinkMessage) {
        var fields: [String: JSONValue] = [:]
        switch message {
        case .registered(let topic, let token, let kind, let activityID, _), .unregistered(let topic, let token, let kind, let activityID):
            fields = ["event": .string(message.typeName), "topic": .string(topic), "kind": .string(kind.rawValue), "deviceToken": .string(token)]
            if let activityID { fields["activityID"] = .string(activityID) }
        case .subscribed(let topic, let channelID), .unsubscribed(let topic, let channelID):
            fields = ["event": .string(message.typeName), "topic": .string(topic), "channelID": .string(channelID)]
        default:
            return
        }
        if json { return emit(fields) }
        let what = fields["activityID"]?.stringValue.map { "activity \($0)" } ?? fields["kind"]?.stringValue ?? "channel"
        let value = fields["deviceToken"]?.stringValue.map { "token \($0)" } ?? fields["channelID"]?.stringValue ?? ""
        printNow("\(message.typeName) \(fields["topic"]?.stringValue ?? "") \(what): \(value)")
    }

    /// The UnifiedPush distributor's doings; a web push message shows its size, never its (encrypted) body.
    private func showUnifiedPush(_ event: UnifiedPushEvent) {
        switch event {
        case .distributing(let busName):
            if json { return emit(["event": .string("unifiedPush"), "busName": .string(busName)]) }
            printNow("UnifiedPush distributor on the session bus: \(busName)")
        case .registered(let app, let subscription, let endpoint):
            if json {
                return emit([
                    "event": .string("webpushRegistered"), "app": .string(app), "subscription": .string(subscription), "endpoint": .string(endpoint),
                ])
            }
            printNow("web push: \(app) registered, endpoint \(endpoint)")
        case .unregistered(let app, let subscription):
            if json { return emit(["event": .string("webpushUnregistered"), "app": .string(app), "subscription": .string(subscription)]) }
            printNow("web push: \(app) unregistered (\(subscription))")
        case .message(let app, let subscription, let apnsID, let topic, let urgency, let size, let delivered):
            if json {
                var fields: [String: JSONValue] = [
                    "event": .string("webpush"), "app": .string(app), "subscription": .string(subscription), "apnsID": .string(apnsID),
                    "urgency": .string(urgency), "size": .integer(Int64(size)), "delivered": .bool(delivered),
                ]
                if let topic { fields["topic"] = .string(topic) }
                return emit(fields)
            }
            let topicText = topic.map { ", topic \($0)" } ?? ""
            printNow(
                "web push \(apnsID) for \(app): \(size) bytes encrypted, \(urgency)\(topicText); "
                    + (delivered ? "handed to its connector" : "not delivered, pending at the gateway"))
        }
    }

    /// A Live Activity's change, with what it shows now: its state, and the view its widget extension drew (as the
    /// lines `herald device show` prints a view as).
    private func showActivity(_ change: ActivityChange, view: ViewSnapshot?) {
        let activity = change.activity
        let state = (try? JSONValue.parse(activity.state)) ?? .null
        if json {
            var fields: [String: JSONValue] = [
                "event": .string("activity"), "change": .string(change.kind.rawValue), "activityID": .string(activity.id),
                "topic": .string(activity.bundleID), "attributesType": .string(activity.attributesType),
                "attributes": (try? JSONValue.parse(activity.attributes)) ?? .null, "state": state,
                "phase": .string(activity.phase.rawValue), "origin": .string(activity.origin.rawValue),
            ]
            if let alert = change.alert { fields["alert"] = alert }
            if let stale = activity.staleDate { fields["staleDate"] = .integer(Int64(stale.timeIntervalSince1970)) }
            if let dismiss = activity.dismissAt { fields["dismissalDate"] = .integer(Int64(dismiss.timeIntervalSince1970)) }
            if let score = activity.relevanceScore { fields["relevanceScore"] = .number(score) }
            if let channel = activity.channelID { fields["channelID"] = .string(channel) }
            if let view { fields["view"] = .array(view.text.map(JSONValue.string)) }
            return emit(fields)
        }
        let alert = change.alert.map { " (alert: \(String(decoding: $0.encoded(), as: UTF8.self)))" } ?? ""
        printNow(
            "Live Activity \(activity.attributesType) of \(activity.bundleID) \(change.kind.rawValue): "
                + String(decoding: state.encoded(), as: UTF8.self) + alert + (view?.text.map { "\n  " + $0 }.joined() ?? ""))
    }

    func warn(_ text: String) {
        FileHandle.standardError.write(Data(("herald device: " + text + "\n").utf8))
    }

    private func emit(_ fields: [String: JSONValue]) {
        printNow(String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self))
    }
}
