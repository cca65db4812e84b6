import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A device port under attack, over real sockets: hellos that do not answer the link's own challenge with the key they
/// name, acknowledgements and responses for another device's notifications, floods of registrations. Each is refused
/// or ignored, and counted in `/metrics`.
@Suite struct DeviceLinkAbuseTests {
    /// The value of the metric line starting with `name` (labels included), 0 when absent.
    private static func metric(_ name: String, on gateway: TestGateway) async throws -> Int {
        let port = try await gateway.gateway.consolePort()
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// Waits up to 10 s for the metric to reach `value` (some are counted off the event loop).
    private static func expectMetric(
        _ name: String, _ value: Int, on gateway: TestGateway, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        var seen = try await metric(name, on: gateway)
        while seen != value, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            seen = try await metric(name, on: gateway)
        }
        #expect(seen == value, "\(name)", sourceLocation: sourceLocation)
    }

    /// Connects, upgrades and returns the link with its challenge's nonce.
    private static func challenged(_ gateway: TestGateway) async throws -> (RawDeviceLink, nonce: String) {
        let link = try await RawDeviceLink.connect(port: try await gateway.gateway.devicePort())
        try await link.upgrade()
        guard case .challenge(let nonce) = try DeviceLinkMessage.decode(try await link.frame { $0.opcode == 0x1 }.text) else {
            throw RawDeviceLinkError("no challenge")
        }
        return (link, nonce)
    }

    /// Sends `hello` on a fresh link and returns the close frame the gateway answers with.
    private static func refusal(of hello: (_ nonce: String) throws -> DeviceLinkMessage.Hello, on gateway: TestGateway) async throws -> (
        code: UInt16, reason: String
    )? {
        let (link, nonce) = try await challenged(gateway)
        try await link.send(text: DeviceLinkMessage.hello(try hello(nonce)).encoded())
        let close = try await link.frame(after: 1) { $0.opcode == 0x8 || $0.opcode == 0x1 }.close
        await link.close()
        return close
    }

    @Test func forgedReplayedAndBorrowedHellosAreRefusedAndCounted() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let (owner, stranger) = (P256.Signing.PrivateKey(), P256.Signing.PrivateKey())
        // A hello that was good once, on a link of its own.
        let (first, firstNonce) = try await Self.challenged(gateway)
        let recorded = try DeviceIdentity.hello(answering: firstNonce, with: owner)
        try await first.send(text: DeviceLinkMessage.hello(recorded).encoded())
        guard case .welcome = try DeviceLinkMessage.decode(try await first.frame(after: 1) { $0.opcode == 0x1 }.text) else {
            throw RawDeviceLinkError("the owner's own hello was refused")
        }
        await first.close()

        let attempts: [(String, (String) throws -> DeviceLinkMessage.Hello)] = [
            // The owner's key, a signature made up.
            (
                "forged",
                { _ in .init(publicKey: recorded.publicKey, signature: Base64URL.encode((0..<64).map { _ in UInt8.random(in: .min ... .max) })) }
            ),
            // The owner's hello from the earlier link, sent again to a new challenge.
            ("replayed", { _ in recorded }),
            // The owner's key named, the challenge signed by another key.
            (
                "borrowed",
                { nonce in .init(publicKey: recorded.publicKey, signature: try DeviceIdentity.hello(answering: nonce, with: stranger).signature) }
            ),
        ]
        for (name, hello) in attempts {
            let close = try await Self.refusal(of: hello, on: gateway)
            #expect(
                close?.code == 1008 && close?.reason == "authentication failed: bad public key or signature", "\(name): \(String(describing: close))")
        }
        try await Self.expectMetric(#"herald_device_link_closed_total{reason="authentication_failed"}"#, 3, on: gateway)
        try await gateway.stop()
    }

    /// A device that acknowledges, or answers, a notification sent to another device changes nothing of it: the other
    /// device still has it in flight and gets it again on its next link.
    @Test func anAckOrResponseForAnotherDevicesNotificationIsIgnoredAndCounted() async throws {
        let gateway = try await TestGateway.start()
        let recipient = try await TestDevice.connect(to: gateway)
        let token = try await recipient.register(TestGateway.topic)
        let connection = try await gateway.connect()
        #expect(try await connection.send(try await gateway.push { $0.token = token }).status == 200)
        let notification = try await recipient.notification()

        let intruder = try await TestDevice.connect(to: gateway)
        intruder.send(.ack(uniqueID: notification.uniqueID))
        intruder.send(.response(uniqueID: notification.uniqueID, action: "com.apple.UNNotificationDefaultActionIdentifier", text: nil))
        try await Self.expectMetric(#"herald_device_link_ignored_total{message="ack"}"#, 1, on: gateway)
        try await Self.expectMetric(#"herald_device_link_ignored_total{message="response"}"#, 1, on: gateway)
        #expect(try await Self.metric("herald_notifications_delivered_total", on: gateway) == 0)

        await recipient.leave()
        let again = try await TestDevice.connect(to: gateway, key: recipient.key)
        #expect(try await again.notification().uniqueID == notification.uniqueID)
        await again.leave()
        await intruder.leave()
        await connection.close()
        try await gateway.stop()
    }

    /// Registrations past the link's burst are answered TooManyRequests, without a store write, and the link stays.
    @Test func aFloodOfRegistrationsIsAnsweredTooManyRequestsAndCounted() async throws {
        let gateway = try await TestGateway.start {
            $0.deviceLinkRequestBurst = 8
            $0.deviceLinkRequestRate = 0.001
        }
        let device = try await TestDevice.connect(to: gateway)
        for index in 0..<12 { device.send(.register(topic: "com.example.flood\(index)")) }
        var registered = 0
        var refused: [String] = []
        for _ in 0..<12 {
            switch try await device.next() {
            case .registered: registered += 1
            case .error(let refusal):
                #expect(
                    refusal.reason == "TooManyRequests" && refusal.message == "a device may make 8 requests at once and 0.001 a second after that")
                refused.append(refusal.topic ?? "")
            case let other: Issue.record("unexpected \(String(describing: other))")
            }
        }
        #expect(registered == 8 && refused == (8..<12).map { "com.example.flood\($0)" })
        #expect(try await gateway.store.devices(owner: device.deviceID).count == 8)
        try await Self.expectMetric(#"herald_device_link_requests_refused_total{reason="TooManyRequests"}"#, 4, on: gateway)
        device.send(.ack(uniqueID: UUID()))  // the link is still open
        try await Self.expectMetric(#"herald_device_link_ignored_total{message="ack"}"#, 1, on: gateway)
        await device.leave()
        try await gateway.stop()
    }

    /// A device that breaks the framing (a message in more frames than allowed) gets its close frame and then the
    /// connection ends at once: the gateway does not read on for the device's close frame, so frames it keeps sending
    /// soon fail (the connection is reset) instead of being read for the close timeout.
    @Test func aFramingFloodFailsTheLinkAtOnce() async throws {
        let gateway = try await TestGateway.start {
            $0.plaintext = true
            $0.deviceLinkCloseTimeout = .seconds(120)
        }
        let link = try await RawDeviceLink.linked(port: try await gateway.gateway.devicePort())
        try await link.send(fin: false, Array("{".utf8))
        for _ in 0..<WebSocketMessageAssembler.fragmentLimit { try await link.send(opcode: 0x0, fin: false, []) }
        let close = try await link.frame { $0.opcode == 0x8 }.close
        #expect(close?.code == 1009 && close?.reason == "a message in more than 64 frames")
        var refused = false
        for _ in 0..<1_000 where !refused {
            do {
                try await link.send(opcode: 0x0, fin: false, [])
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                refused = true
            }
        }
        #expect(refused, "the gateway still read the link 10 s after failing it")
        try await Self.expectMetric(#"herald_device_link_closed_total{reason="message_too_large"}"#, 1, on: gateway)
        await link.close()
        try await gateway.stop()
    }

    @Test func aDeviceHasAtMostTheAppLimitRegistered() async throws {
        let gateway = try await TestGateway.start { $0.deviceAppLimit = 3 }
        let device = try await TestDevice.connect(to: gateway)
        let tokens = try await (0..<3).asyncMap { try await device.register("com.example.app\($0)") }
        device.send(.register(topic: "com.example.app3"))
        guard case .error(let refusal)? = try await device.next(), refusal.reason == "TooManyApps", refusal.topic == "com.example.app3" else {
            throw RawDeviceLinkError("the fourth app was not refused")
        }
        let message = refusal.message
        #expect(message == "this device has 3 apps registered, the most a device may have; unregister one first")
        #expect(try await device.register("com.example.app0") == tokens[0])  // one it has: the same token
        device.send(.unregister(topic: "com.example.app1"))
        _ = try await device.next()
        #expect(try await device.register("com.example.app3").count == 64)
        try await Self.expectMetric(#"herald_device_link_requests_refused_total{reason="TooManyApps"}"#, 1, on: gateway)
        await device.leave()
        try await gateway.stop()
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
