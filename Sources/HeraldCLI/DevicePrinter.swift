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
            let card = NotificationCard(notification)
            printNow(json ? card.jsonLine : card.text)
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
}
