import Foundation
package import HeraldDBus
import Synchronization

/// A notification server (`org.freedesktop.Notifications`, Desktop Notifications spec 1.2) on a test bus, scripted
/// as a person would use one: it records every `Notify` and `CloseNotification` with all their arguments, advertises
/// the capabilities it is given, and emits `ActionInvoked`, `NotificationClosed` and `NotificationReplied` on demand.
/// It also records the Unity launcher badge signals (`com.canonical.Unity.LauncherEntry.Update`) seen on the bus.
package final class ScriptedNotificationServer: Sendable {
    package static let name = "org.freedesktop.Notifications"
    package static let path = "/org/freedesktop/Notifications"
    /// Everything a full-featured server (KDE Plasma) advertises.
    package static let everyCapability = [
        "actions", "body", "body-hyperlinks", "body-images", "body-markup", "icon-static", "inline-reply", "persistence", "sound",
    ]

    /// One `Notify` call as received.
    package struct Notification: Sendable, Hashable {
        package var id: UInt32
        package var appName: String
        package var replacesID: UInt32
        package var appIcon: String
        package var summary: String
        package var body: String
        /// Key, label, key, label…, as sent.
        package var actions: [String]
        package var hints: [String: DBusValue]
        package var expireTimeout: Int32
        /// When it arrived, for latency measurements.
        package var receivedAt: ContinuousClock.Instant

        /// The action keys, without their labels.
        package var actionKeys: [String] { stride(from: 0, to: actions.count, by: 2).map { actions[$0] } }
        /// The label of `key`.
        package func label(of key: String) -> String? {
            stride(from: 0, to: actions.count - 1, by: 2).first { actions[$0] == key }.map { actions[$0 + 1] }
        }
    }

    /// What the server saw, in order.
    package enum Event: Sendable, Hashable {
        case notify(Notification)
        case close(UInt32)
        /// A launcher entry's `Update`: the app URI and its properties (`count`, `count-visible`).
        case launcherUpdate(appURI: String, properties: [String: DBusValue])
    }

    private struct State {
        var refusing = false
        var clickingBeforeAnswering: String?
        var nextID: UInt32 = 1
        var events: [Event] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    package let connection: DBusConnection
    private let state = Mutex(State())

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Connects to `address`, exports the server and takes its name.
    package static func start(on address: String, capabilities: [String] = everyCapability) async throws -> ScriptedNotificationServer {
        let server = ScriptedNotificationServer(connection: try await DBusConnection.connect(address: address))
        try await server.connection.export(path: path) { [server] call in server.answer(call, capabilities: capabilities) }
        let launcher = try await server.connection.signals(DBusMatch(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
        Task {
            for await signal in launcher {
                guard signal.body.count == 2, let uri = signal.body[0].string, let properties = signal.body[1].dictionary else { continue }
                server.record(.launcherUpdate(appURI: uri, properties: properties))
            }
        }
        try await server.connection.requestName(name)
        return server
    }

    /// Answers the next `Notify` calls with an `InvalidArgs` error (as a picky server might) until told otherwise.
    package func refuseNotify(_ refusing: Bool) {
        state.withLock { $0.refusing = refusing }
    }

    /// Clicks the action `key` of each new bubble before answering its `Notify`, as a person faster than the
    /// bus might; nil stops it.
    package func clickBeforeAnswering(_ key: String?) {
        state.withLock { $0.clickingBeforeAnswering = key }
    }

    package func stop() {
        connection.close()
    }

    package var events: [Event] { state.withLock { $0.events } }

    package var notifications: [Notification] {
        events.compactMap { if case .notify(let notification) = $0 { notification } else { nil } }
    }

    /// Waits until `count` events have been seen, then returns them all.
    @discardableResult
    package func waitForEvents(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [Event] {
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            wake(all: true)
        }
        defer { watchdog.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.events.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
        let events = self.events
        guard events.count >= count else { throw TimedOut(wanted: count, events: events) }
        return events
    }

    /// Waits for the `count`th `Notify` and returns it.
    package func waitForNotification(_ count: Int = 1, timeout: Duration = .seconds(20)) async throws -> Notification {
        let deadline = ContinuousClock.now + timeout
        while true {
            let notifications = self.notifications
            if notifications.count >= count { return notifications[count - 1] }
            guard ContinuousClock.now < deadline else { throw TimedOut(wanted: count, events: events) }
            try await waitForEvents(events.count + 1, timeout: deadline - ContinuousClock.now)
        }
    }

    package struct TimedOut: Error, CustomStringConvertible {
        var wanted: Int
        var events: [Event]
        package var description: String { "waited for \(wanted) events, saw \(events.count): \(events)" }
    }

    // MARK: What a person does

    /// Clicks an action (`default`: the notification itself).
    package func invokeAction(_ key: String, on id: UInt32) async throws {
        try await emit("ActionInvoked", [.uint32(id), .string(key)])
    }

    /// Types `text` into the inline reply field and sends it (KDE).
    package func reply(_ text: String, to id: UInt32) async throws {
        try await emit("NotificationReplied", [.uint32(id), .string(text)])
    }

    /// Closes the bubble: reason 1 expired, 2 dismissed by the user, 3 closed by CloseNotification, 4 undefined.
    package func close(_ id: UInt32, reason: UInt32) async throws {
        try await emit("NotificationClosed", [.uint32(id), .uint32(reason)])
    }

    private func emit(_ member: String, _ body: [DBusValue]) async throws {
        try await connection.emit(path: Self.path, interface: Self.name, member: member, body)
    }

    // MARK: The server's side

    private func answer(_ call: DBusMethodCall, capabilities: [String]) -> DBusReply {
        guard call.interface == Self.name else { return .unknownMethod(call) }
        switch call.member {
        case "GetCapabilities":
            return .values([.strings(capabilities)])
        case "GetServerInformation":
            return .values([.string("herald-scripted"), .string("Herald"), .string("1.0"), .string("1.2")])
        case "Notify":
            if state.withLock({ $0.refusing }) {
                return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "refused by the script")
            }
            guard let notification = notification(from: call.body) else {
                return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Notify takes (susssasa{sv}i)")
            }
            record(.notify(notification))
            if let key = state.withLock({ $0.clickingBeforeAnswering }) {
                let click = DBusSignal(
                    path: Self.path, interface: Self.name, member: "ActionInvoked", body: [.uint32(notification.id), .string(key)])
                return .signalsThenValues([click], [.uint32(notification.id)])
            }
            return .values([.uint32(notification.id)])
        case "CloseNotification":
            guard let id = call.body.first?.integer else {
                return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "CloseNotification takes (u)")
            }
            record(.close(UInt32(id)))
            Task { try? await close(UInt32(id), reason: 3) }
            return .values([])
        default:
            return .unknownMethod(call)
        }
    }

    private func notification(from body: [DBusValue]) -> Notification? {
        guard body.count == 8, case .string(let appName) = body[0], case .uint32(let replaces) = body[1],
            case .string(let icon) = body[2], case .string(let summary) = body[3], case .string(let text) = body[4],
            let actions = body[5].elements?.compactMap(\.string), let hints = body[6].dictionary, case .int32(let timeout) = body[7]
        else { return nil }
        let id = state.withLock { state in
            if replaces != 0 { return replaces }
            defer { state.nextID += 1 }
            return state.nextID
        }
        return Notification(
            id: id, appName: appName, replacesID: replaces, appIcon: icon, summary: summary, body: text, actions: actions,
            hints: hints, expireTimeout: timeout, receivedAt: .now
        )
    }

    private func record(_ event: Event) {
        state.withLock { $0.events.append(event) }
        wake(all: false)
    }

    private func wake(all: Bool) {
        let ready = state.withLock { state in
            let count = state.events.count
            let ready = state.waiters.filter { all || $0.count <= count }
            state.waiters.removeAll { all || $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }
}
