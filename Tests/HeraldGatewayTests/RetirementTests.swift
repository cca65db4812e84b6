import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// A retired token is announced once, whoever retired it: the device that holds it is told (unless it asked), and
/// the console's event stream says so — for `herald tokens retire` in another process (the store alone), the
/// console's unregister, and the device's own request.
@Suite struct RetirementTests {
    /// The console's event stream, read as it comes.
    final class Events {
        private var iterator: AsyncThrowingStream<String, any Error>.Iterator
        private var received = ""

        init(_ gateway: TestGateway) async throws {
            let http = ConsoleHTTP(port: try await gateway.gateway.consolePort())
            iterator = try await http.stream("/v1/events", headers: ["Authorization": "Bearer \(gateway.gateway.adminToken)"])
                .makeAsyncIterator()
            while !received.contains(": following delivery events") { received += try await iterator.next() ?? "" }
        }

        /// Every `unregistered` event received whole so far.
        var unregistered: [JSONValue] {
            let lines = received.components(separatedBy: "\n")
            return lines.indices.compactMap { index in
                guard lines[index].hasSuffix("event: unregistered"), index + 1 < lines.count else { return nil }
                return try? JSONValue.parse(Data(lines[index + 1].dropFirst("data: ".count).utf8))
            }
        }

        /// Waits for an `unregistered` event about `token`.
        func unregistered(of token: String) async throws -> JSONValue {
            while true {
                if let event = unregistered.first(where: { $0["deviceToken"]?.stringValue == token }) { return event }
                guard let more = try await iterator.next() else { throw CancellationError() }
                received += more
            }
        }
    }

    @Test func aTokenRetiredByAnotherProcessIsAnnouncedAndItsDeviceTold() async throws {
        let gateway = try await TestGateway.start()
        let events = try await Events(gateway)
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        // What `herald tokens retire --reason expired` does beside a running gateway: it writes the store, nothing else.
        #expect(try await gateway.store.retireDevice(try #require(DeviceToken(hex: token)), as: .expired, at: gateway.clock.now()))

        #expect(try await device.next() == .unregistered(topic: TestGateway.topic, deviceToken: token))
        let announced = try await events.unregistered(of: token)
        #expect(announced["reason"]?.stringValue == "expired" && announced["topic"]?.stringValue == TestGateway.topic)
        #expect(announced["deviceID"]?.stringValue != nil && announced["at"]?.stringValue != nil)
        await device.leave()
        try await gateway.stop()
    }

    @Test func aTokenUnregisteredFromTheConsoleIsToldToItsDevice() async throws {
        let gateway = try await TestGateway.start()
        let events = try await Events(gateway)
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        let answer = try await AdminClient(gateway: gateway).request("POST", "/v1/tokens/\(token)/unregister", body: "{}")
        #expect(answer.status == 200)
        #expect(try await device.next() == .unregistered(topic: TestGateway.topic, deviceToken: token))
        #expect(try await events.unregistered(of: token)["reason"]?.stringValue == "unregistered")
        await device.leave()
        try await gateway.stop()
    }

    @Test func aDeviceThatUnregistersItselfIsAnsweredOnceAndAnnouncedOnce() async throws {
        let gateway = try await TestGateway.start()
        let events = try await Events(gateway)
        let device = try await TestDevice.connect(to: gateway)
        let mine = try await device.register(TestGateway.topic)
        let other = try await device.register("com.example.other")
        device.send(.unregister(topic: TestGateway.topic))
        #expect(try await device.next() == .unregistered(topic: TestGateway.topic, deviceToken: mine))
        _ = try await events.unregistered(of: mine)
        // A barrier: the next thing the device hears is the console's retirement of its other app, not its own again.
        #expect(try await AdminClient(gateway: gateway).request("POST", "/v1/tokens/\(other)/unregister", body: "{}").status == 200)
        #expect(try await device.next() == .unregistered(topic: "com.example.other", deviceToken: other))
        _ = try await events.unregistered(of: other)
        #expect(events.unregistered.filter { $0["deviceToken"]?.stringValue == mine }.count == 1)
        await device.leave()
        try await gateway.stop()
    }

    @Test func retirementsBeforeTheGatewayStartedAreNotAnnouncedAgain() async throws {
        let store = try SQLiteStore(path: TemporaryPath.make("herald-retired", suffix: ".sqlite"))
        let old = try await store.register(owner: "device-1", bundleID: TestGateway.topic, environment: .development, at: Date())
        #expect(try await store.retireDevice(old.token, as: .unregistered, at: Date()))
        let gateway = try await TestGateway.start(store: store)
        let events = try await Events(gateway)
        let fresh = try await gateway.issueToken()
        #expect(try await store.retireDevice(try #require(DeviceToken(hex: fresh)), as: .unregistered, at: Date()))
        _ = try await events.unregistered(of: fresh)
        #expect(events.unregistered.map { $0["deviceToken"]?.stringValue } == [fresh])
        try await gateway.stop()
    }

    /// A live token's record is read once and trusted (``GatewayConfiguration/liveDeviceTimeToLive``), not read again
    /// every `directoryTimeToLive` (zero here: every other answer is read again), so that many distinct tokens do not
    /// cost a store read per request; a retirement by another process still reaches the provider API once announced.
    @Test func aLiveTokenIsReadOnceAndItsRetirementByAnotherProcessIsStillSeen() async throws {
        let gateway = try await TestGateway.start()
        let store = try #require(gateway.store as? FaultInjectingStore)
        let events = try await Events(gateway)
        let connection = try await gateway.connect()
        let push = try await gateway.push()
        for _ in 0..<5 { #expect(try await connection.send(push).status == 200) }
        let token = try #require(DeviceToken(hex: push.token))
        #expect(store.deviceReads(of: token) == 1)
        let unknown = Push(token: DeviceToken.random().hex, jwt: push.jwt)
        for _ in 0..<2 { #expect(try await connection.send(unknown).reason == .badDeviceToken) }
        #expect(store.deviceReads(of: try #require(DeviceToken(hex: unknown.token))) == 2)
        // What `herald tokens retire` does beside a running gateway: it writes the store, nothing else.
        #expect(try await store.retireDevice(token, as: .unregistered, at: gateway.clock.now()))
        _ = try await events.unregistered(of: push.token)
        #expect(try await connection.send(push).status == 410)
        try await gateway.stop()
    }
}
