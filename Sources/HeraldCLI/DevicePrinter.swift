import Foundation
import HeraldDevice
import HeraldWire
import Synchronization
import UserNotifications

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
        case .refused(let reason, let message):
            warn("the gateway refused: \(reason): \(message)")
        case .linkClosed(let reason):
            warn("link to the gateway closed (\(reason)); reconnecting")
        case .problem(let message):
            warn(message)
        }
    }

    func warn(_ text: String) {
        FileHandle.standardError.write(Data(("herald device: " + text + "\n").utf8))
    }

    private func emit(_ fields: [String: JSONValue]) {
        printNow(String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self))
    }
}
