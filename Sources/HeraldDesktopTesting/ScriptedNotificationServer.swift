import Foundation
package import HeraldDBus
import HeraldTesting

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

    private struct State: Sendable {
        var refusing = false
        var clickingBeforeAnswering: String?
        var nextID: UInt32 = 1
        var events: [Event] = []
        var doNotDisturb = false
    }

    package let connection: DBusConnection
    private let state = Watched(State())

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Connects to `address`, exports the server and takes its name. `serverName` is what `GetServerInformation` says
    /// ("dunst" also answers dunst's `paused` property).
    package static func start(
        on address: String, capabilities: [String] = everyCapability, serverName: String = "herald-scripted"
    ) async throws -> ScriptedNotificationServer {
        let server = ScriptedNotificationServer(connection: try await DBusConnection.connect(address: address))
        try await server.connection.export(path: path) { [server] call in
            server.answer(call, capabilities: capabilities, serverName: serverName)
        }
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
        state.update { $0.refusing = refusing }
    }

    /// Clicks the action `key` of each new bubble before answering its `Notify`, as a person faster than the
    /// bus might; nil stops it.
    package func clickBeforeAnswering(_ key: String?) {
        state.update { $0.clickingBeforeAnswering = key }
    }

    /// Turns the server's own do-not-disturb on or off: KDE's `Inhibited` (with the `inhibitions` capability), dunst's
    /// `paused`.
    package func setDoNotDisturb(_ on: Bool) {
        state.update { $0.doNotDisturb = on }
    }

    package func stop() {
        connection.close()
    }

    package var events: [Event] { state.value.events }

    package var notifications: [Notification] {
        events.compactMap { if case .notify(let notification) = $0 { notification } else { nil } }
    }

    /// Waits until `count` events have been seen, then returns them all.
    @discardableResult
    package func waitForEvents(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [Event] {
        try await waitForEvents(wanted: "\(count) events", timeout: timeout) { $0.count >= count }
    }

    /// Waits until an event matching `condition` has been seen, then returns every event.
    @discardableResult
    package func waitForEvent(timeout: Duration = .seconds(20), where condition: @escaping @Sendable (Event) -> Bool) async throws -> [Event] {
        try await waitForEvents(wanted: "a matching event", timeout: timeout) { $0.contains(where: condition) }
    }

    /// Waits for the `count`th `Notify` and returns it.
    package func waitForNotification(_ count: Int = 1, timeout: Duration = .seconds(20)) async throws -> Notification {
        let notifications = try await waitForEvents(wanted: "\(count) notifications", timeout: timeout) {
            $0.count { if case .notify = $0 { true } else { false } } >= count
        }
        .compactMap { if case .notify(let notification) = $0 { notification } else { nil } }
        return notifications[count - 1]
    }

    private func waitForEvents(wanted: String, timeout: Duration, until condition: @escaping @Sendable ([Event]) -> Bool) async throws -> [Event] {
        guard await state.wait(timeout: timeout, until: { condition($0.events) }) else { throw TimedOut(wanted: wanted, events: events) }
        return events
    }

    package struct TimedOut: Error, CustomStringConvertible {
        var wanted: String
        var events: [Event]
        package var description: String { "waited for \(wanted), saw \(events.count) events: \(events)" }
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

    private func answer(_ call: DBusMethodCall, capabilities: [String], serverName: String) -> DBusReply {
        if call.interface == "org.freedesktop.DBus.Properties", call.member == "Get", call.body.count == 2 {
            switch (call.body[0].string, call.body[1].string) {
            case (Self.name, "Inhibited") where capabilities.contains("inhibitions"),
                ("org.dunstproject.cmd0", "paused") where serverName == "dunst":
                return .values([.variant(.boolean(state.value.doNotDisturb))])
            default:
                return .error(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no such property")
            }
        }
        guard call.interface == Self.name else { return .unknownMethod(call) }
        switch call.member {
        case "GetCapabilities":
            return .values([.strings(capabilities)])
        case "GetServerInformation":
            return .values([.string(serverName), .string("Herald"), .string("1.0"), .string("1.2")])
        case "Notify":
            if state.value.refusing {
                return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "refused by the script")
            }
            guard let notification = notification(from: call.body) else {
                return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Notify takes (susssasa{sv}i)")
            }
            record(.notify(notification))
            if let key = state.value.clickingBeforeAnswering {
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
        let id = state.update { state in
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
        state.update { $0.events.append(event) }
    }
}
