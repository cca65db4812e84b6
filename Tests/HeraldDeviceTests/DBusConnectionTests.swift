import Foundation
import HeraldDBus
import HeraldDesktopTesting
import HeraldTesting
import Testing

/// The sd-bus wrapper against a real `dbus-daemon`: values keep their types both ways, signals arrive, errors are
/// said, and a bus that dies ends everything waiting on it.
@Suite(.timeLimit(.minutes(1))) struct DBusConnectionTests {
    @Test func notifyReachesTheServerWithEveryValueAsSent() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let client = try await DBusConnection.connect(address: bus.address)
        let image = DBusValue.structure([.int32(2), .int32(1), .int32(8), .boolean(true), .int32(8), .int32(4), .bytes([1, 2, 3, 4, 5, 6, 7, 8])])
        let reply = try await client.call(
            destination: ScriptedNotificationServer.name, path: ScriptedNotificationServer.path, interface: ScriptedNotificationServer.name,
            member: "Notify",
            [
                .string("Café ☕"), .uint32(0), .string("/icon.png"), .string("Summary"), .string("Body & more"),
                .strings(["default", "Open", "later", "Later"]),
                .hints(["urgency": .byte(2), "transient": .boolean(true), "image-data": image, "x-count": .int64(-7)]), .int32(-1),
            ])
        #expect(reply == [.uint32(1)])
        let notification = try await server.waitForNotification()
        #expect(notification.appName == "Café ☕")
        #expect(notification.summary == "Summary" && notification.body == "Body & more" && notification.appIcon == "/icon.png")
        #expect(notification.actionKeys == ["default", "later"] && notification.label(of: "later") == "Later")
        #expect(notification.hints == ["urgency": .byte(2), "transient": .boolean(true), "image-data": image, "x-count": .int64(-7)])
        #expect(notification.expireTimeout == -1)
    }

    @Test func capabilitiesAndErrorsComeBack() async throws {
        let bus = try await TestSessionBus()
        _ = try await ScriptedNotificationServer.start(on: bus.address, capabilities: ["body"])
        let client = try await DBusConnection.connect(address: bus.address)
        let path = ScriptedNotificationServer.path, name = ScriptedNotificationServer.name
        let capabilities = try await client.call(destination: name, path: path, interface: name, member: "GetCapabilities")
        #expect(capabilities == [.strings(["body"])])
        await #expect(throws: DBusError.remote(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(name).Nope at \(path)")) {
            try await client.call(destination: name, path: path, interface: name, member: "Nope")
        }
        await #expect(throws: DBusError.self) {
            try await client.call(destination: "org.example.Nobody", path: "/", interface: "org.example.Nobody", member: "Hello")
        }
    }

    @Test func signalsReachSubscribers() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let client = try await DBusConnection.connect(address: bus.address)
        let signals = try await client.signals(DBusMatch(path: ScriptedNotificationServer.path, interface: ScriptedNotificationServer.name))
        try await server.invokeAction("default", on: 7)
        try await server.close(7, reason: 2)
        var received: [DBusSignal] = []
        for await signal in signals {
            received.append(signal)
            if received.count == 2 { break }
        }
        #expect(received.map(\.member) == ["ActionInvoked", "NotificationClosed"])
        #expect(received.map(\.body) == [[.uint32(7), .string("default")], [.uint32(7), .uint32(2)]])
        #expect(received.allSatisfy { $0.sender == server.connection.uniqueName })
    }

    @Test func aDeadBusEndsStreamsAndFailsCalls() async throws {
        let bus = try await TestSessionBus()
        let client = try await DBusConnection.connect(address: bus.address)
        let signals = try await client.signals(DBusMatch(interface: "org.example.Never"))
        await bus.stop()
        for await _ in signals { Issue.record("no signal was sent") }
        await client.closed()
        await #expect(throws: DBusError.closed) {
            try await client.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
        }
        do {
            _ = try await DBusConnection.connect(address: bus.address)
            Issue.record("connected to a dead bus")
        } catch {
            #expect("\(error)".hasPrefix("cannot reach the D-Bus session bus at \(bus.address)"))
        }
    }

    @Test func noSessionBusIsSaid() async throws {
        #expect(DBusConnection.sessionAddress(environment: [:]) == nil)
        #expect(DBusConnection.sessionAddress(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]) == "unix:path=/x")
        await #expect(throws: DBusError.noSessionBus) { try await DBusConnection.session(environment: [:]) }
    }
}
