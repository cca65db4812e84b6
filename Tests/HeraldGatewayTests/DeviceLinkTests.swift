import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldTesting
import HeraldWire
import NIOCore
import Testing

/// The device link's connection rules over real sockets: takeover, shutdown, HTTP, framing (its timers:
/// DeviceLinkTimeTests, on virtual time).
@Suite struct DeviceLinkTests {
    private func push(_ gateway: TestGateway, to token: String) async throws -> Int {
        var push = Push(token: token, jwt: gateway.defaultJWT)
        push.body = Data(#"{"aps":{"alert":"hello"}}"#.utf8)
        let connection = try await gateway.connect()
        let response = try await connection.send(push)
        await connection.close()
        return response.status
    }

    @Test func aNewerLinkFromTheSameDeviceReplacesTheOlderOne() async throws {
        let gateway = try await TestGateway.start()
        let older = try await TestDevice.connect(to: gateway)
        let token = try await older.register(TestGateway.topic)
        let newer = try await TestDevice.connect(to: gateway, key: older.key)
        let closed = await older.closed()
        #expect(closed.contains("4001") && closed.contains("replaced by a newer link from the same device"), "closed: \(closed)")
        #expect(try await push(gateway, to: token) == 200)
        _ = try await newer.notification()
        await newer.leave()
        try await gateway.stop()
    }

    @Test func gracefulShutdownClosesLinksWith1001() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        _ = try await device.register(TestGateway.topic)
        try await gateway.stop()
        let closed = await device.closed()
        #expect(closed.contains("goingAway") && closed.contains("the gateway is shutting down"), "closed: \(closed)")
    }

    @Test(arguments: ["GET / HTTP/1.1", "GET /v1/link HTTP/1.1", "GET /elsewhere HTTP/1.1"])
    func plainHTTPIsAnswered404WithAHint(requestLine: String) async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let link = try await RawDeviceLink.connect(port: try await gateway.gateway.devicePort())
        try await link.write(Array("\(requestLine)\r\nHost: localhost\r\n\r\n".utf8))
        #expect(try await link.closed(within: .seconds(10)))
        let response = String(buffer: try await link.bytes { _ in true })
        #expect(response.hasPrefix("HTTP/1.1 404") && response.contains("connect a WebSocket to /v1/link"), "\(response)")
        try await gateway.stop()
    }

    @Test func anUpgradeToAnotherPathIsAnswered404() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let link = try await RawDeviceLink.connect(port: try await gateway.gateway.devicePort())
        await #expect(throws: RawDeviceLinkError.self) { try await link.upgrade(path: "/v2/link") }
        let response = String(buffer: try await link.bytes { _ in true })
        #expect(response.hasPrefix("HTTP/1.1 404"), "\(response)")
        try await gateway.stop()
    }

    @Test func aConnectionThatNeverUpgradesIsClosedAtTheHandshakeDeadline() async throws {
        let gateway = try await TestGateway.start {
            $0.plaintext = true
            $0.deviceLinkHandshakeTimeout = .milliseconds(200)
        }
        let link = try await RawDeviceLink.connect(port: try await gateway.gateway.devicePort())
        #expect(try await link.closed(within: .seconds(10)))
        try await gateway.stop()
    }

    @Test func fragmentedMessagesAreJoined() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let link = try await RawDeviceLink.linked(port: try await gateway.gateway.devicePort())
        let message = Array(DeviceLinkMessage.register(topic: TestGateway.topic).encoded().utf8)
        try await link.send(opcode: 0x1, fin: false, Array(message.prefix(10)))
        try await link.send(opcode: 0x0, fin: true, Array(message.dropFirst(10)))
        let reply = try DeviceLinkMessage.decode(try await link.frame(after: 2) { $0.opcode == 0x1 }.text)
        guard case .registered(let topic, _, _, _, _) = reply else {
            Issue.record("got \(reply)")
            return
        }
        #expect(topic == TestGateway.topic)
        await link.close()
        try await gateway.stop()
    }

    @Test func unmaskedFramesCloseWith1002() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let link = try await RawDeviceLink.linked(port: try await gateway.gateway.devicePort())
        try await link.send(masked: false, Array(DeviceLinkMessage.register(topic: TestGateway.topic).encoded().utf8))
        let close = try await link.frame { $0.opcode == 0x8 }.close
        #expect(close?.code == 1002, "close: \(String(describing: close))")
        #expect(try await link.closed(within: .seconds(10)))
        try await gateway.stop()
    }

    @Test func aLongCloseReasonIsCutToFitTheControlFrame() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let link = try await RawDeviceLink.linked(port: try await gateway.gateway.devicePort())
        try await link.send(text: #"{"type":"\#(String(repeating: "x", count: 300))"}"#)
        let close = try await link.frame { $0.opcode == 0x8 }
        #expect(close.close?.code == 1007 && close.payload.count <= 125, "close: \(close.text)")
        await link.close()
        try await gateway.stop()
    }
}

extension DeviceLinkTests {
    @Test func theGatewayEndsItsSideWithItsCloseFrameAndTakesTheDevicesAnswer() async throws {
        // A close timeout well past the wait below: a FIN within it can only be the one behind the close frame.
        let gateway = try await TestGateway.start {
            $0.plaintext = true
            $0.deviceLinkCloseTimeout = .seconds(30)
        }
        let port = try await gateway.gateway.devicePort()
        let key = P256.Signing.PrivateKey()
        let older = try await RawDeviceLink.linked(port: port, key: key)
        let newer = try await RawDeviceLink.linked(port: port, key: key)
        let close = try await older.frame { $0.opcode == 0x8 }
        #expect(close.close?.code == 4001)
        #expect(try await older.closed(within: .seconds(10)))  // FIN right behind the close frame
        try await older.send(opcode: 0x8, close.payload)
        let text = Array(DeviceLinkMessage.register(topic: TestGateway.topic).encoded().utf8)
        try await newer.send(text)
        _ = try await newer.frame(after: 2) { $0.opcode == 0x1 }  // the newer link works on
        await older.close()
        await newer.close()
        try await gateway.stop()
    }
}
