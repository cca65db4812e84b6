import Foundation
import HeraldWire
import Synchronization
import UserNotifications

/// Shows what happens on a device: JSON lines for scripts, or a card per notification for people.
final class DevicePrinter: Sendable {
    private let json: Bool
    /// Tokens already announced, so a reconnect does not repeat them.
    private let announced = Mutex<[String: String]>([:])

    init(json: Bool) {
        self.json = json
    }

    func show(_ event: GatewayLinkEvent) {
        switch event {
        case .connected:
            break
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
        case .notification(let notification):
            if json { emit(Self.fields(of: notification)) } else { printNow(Self.card(for: notification)) }
        case .refused(let reason, let message):
            warn("the gateway refused: \(reason): \(message)")
        }
    }

    func warn(_ text: String) {
        FileHandle.standardError.write(Data(("herald device: " + text + "\n").utf8))
    }

    private func emit(_ fields: [String: JSONValue]) {
        printNow(String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self))
    }

    static func fields(of notification: LinkNotification) -> [String: JSONValue] {
        let payload = (try? JSONValue.parse(notification.payload)) ?? .object([:])
        let content = PayloadContent(payload: payload)
        let text = { (value: String?) in value.map(JSONValue.string) ?? .null }
        return [
            "event": .string("notification"),
            "apnsID": .string(APNsID.format(notification.apnsID)),
            "identifier": .string(notification.requestIdentifier),
            "topic": .string(notification.bundleID),
            "title": text(content.title),
            "subtitle": text(content.subtitle),
            "body": text(content.body),
            "badge": content.badge.map(JSONValue.integer) ?? .null,
            "sound": text(content.sound),
            "categoryIdentifier": text(content.categoryIdentifier),
            "threadIdentifier": text(content.threadIdentifier),
            "userInfo": payload,
        ]
    }

    static func card(for notification: LinkNotification) -> String {
        let payload = (try? JSONValue.parse(notification.payload)) ?? .object([:])
        let content = PayloadContent(payload: payload)
        let time = Date(timeIntervalSince1970: Double(notification.receivedAt) / 1000)
            .formatted(date: .omitted, time: .standard)
        var lines = ["┌─ \(notification.bundleID) · \(time)"]
        for text in [content.title, content.subtitle, content.body].compactMap({ $0 }) {
            lines.append("│ " + text)
        }
        if content.title == nil, content.body == nil {
            lines.append("│ (no alert: \(notification.pushType.rawValue) push)")
        }
        var details: [String] = []
        if let badge = content.badge { details.append("badge \(badge)") }
        if let sound = content.sound { details.append("sound \(sound)") }
        if let category = content.categoryIdentifier { details.append("category \(category)") }
        details.append("id \(notification.requestIdentifier)")
        lines.append("└─ " + details.joined(separator: " · "))
        return lines.joined(separator: "\n")
    }
}
