import Crypto
import Foundation
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Prometheus
import Testing

@testable import HeraldGateway

/// A device link's timers on virtual time: the handler `herald serve` puts after the WebSocket upgrade, on a testing
/// channel whose clock the test moves. Pings, the hello deadline and the close timeout, without waiting.
@Suite struct DeviceLinkTimeTests {
    /// The device link handler on a testing channel, WebSocket frames in and out.
    struct Pipeline {
        let channel: NIOAsyncTestingChannel
        let key = P256.Signing.PrivateKey()
        let metrics = GatewayMetrics()

        /// What `/metrics` would show.
        var metricsText: String {
            var buffer: [UInt8] = []
            metrics.registry.emit(into: &buffer)
            return String(decoding: buffer, as: UTF8.self)
        }

        init(configure: (inout GatewayConfiguration) -> Void = { _ in }) async throws {
            var configuration = GatewayConfiguration()
            configure(&configuration)
            let store = try SQLiteStore(path: TemporaryPath.make("herald-link-time", suffix: ".sqlite"))
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let services = DeviceLinkServices(
                configuration: configuration, store: store, hub: DeviceHub(),
                recorder: DeliveryRecorder(store: store, clock: SystemWallClock(), interval: .milliseconds(50), logger: logger),
                directory: Directory(store: store, configuration: configuration),
                clock: SystemWallClock(), metrics: metrics, logger: logger
            )
            channel = NIOAsyncTestingChannel()
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 5223)).get()
            let channel = self.channel
            try await channel.testingEventLoop.executeInContext {
                try channel.pipeline.syncOperations.addHandler(DeviceLinkHandler(services: services))
            }
        }

        /// The next frame the gateway writes.
        func nextFrame() async throws -> WebSocketFrame {
            try await channel.waitForOutboundWrite(as: WebSocketFrame.self)
        }

        /// Every frame written so far.
        func written() async throws -> [WebSocketFrame] {
            var frames: [WebSocketFrame] = []
            while let frame = try await channel.readOutbound(as: WebSocketFrame.self) { frames.append(frame) }
            return frames
        }

        /// Sends a frame as a device does: masked.
        func send(_ opcode: WebSocketOpcode, _ data: ByteBuffer = ByteBuffer()) async throws {
            let mask = WebSocketMaskingKey.random()
            var masked = data
            masked.webSocketMask(mask)
            try await channel.writeInbound(WebSocketFrame(fin: true, opcode: opcode, maskKey: mask, data: masked))
        }

        /// Answers the challenge and waits for the welcome.
        func link() async throws {
            let challenge = try await nextFrame()
            guard case .challenge(let nonce) = try DeviceLinkMessage.decode(String(buffer: challenge.unmaskedData)) else {
                Issue.record("no challenge first")
                return
            }
            let hello = DeviceLinkMessage.hello(try DeviceIdentity.hello(answering: nonce, with: key)).encoded()
            try await send(.text, ByteBuffer(string: hello))
            let welcome = try await nextFrame()
            guard case .welcome = try DeviceLinkMessage.decode(String(buffer: welcome.unmaskedData)) else {
                Issue.record("no welcome after the hello")
                return
            }
        }

        func advance(by time: TimeAmount) async {
            await channel.testingEventLoop.advanceTime(by: time)
        }
    }

    /// The close frame among `frames`: its code and reason.
    private static func close(in frames: [WebSocketFrame]) -> (code: WebSocketErrorCode?, reason: String)? {
        guard var data = frames.first(where: { $0.opcode == .connectionClose })?.unmaskedData else { return nil }
        let code = data.readWebSocketErrorCode()
        return (code, data.readString(length: data.readableBytes) ?? "")
    }

    @Test func aDeviceThatAnswersPingsStaysLinked() async throws {
        let pipeline = try await Pipeline()
        try await pipeline.link()
        for _ in 0..<3 {
            await pipeline.advance(by: .seconds(30))
            let pings = try await pipeline.written().filter { $0.opcode == .ping }
            #expect(pings.count == 1)
            try await pipeline.send(.pong)
        }
        await pipeline.advance(by: .seconds(29))
        #expect(try await pipeline.written().isEmpty)
        #expect(pipeline.channel.isActive)
    }

    @Test func aDeviceThatStopsAnsweringPingsIsClosed() async throws {
        let pipeline = try await Pipeline()
        try await pipeline.link()
        await pipeline.advance(by: .seconds(30))
        #expect(try await pipeline.written().map(\.opcode) == [.ping])
        await pipeline.advance(by: .seconds(29))
        #expect(pipeline.channel.isActive)
        await pipeline.advance(by: .seconds(1))
        let close = try #require(Self.close(in: try await pipeline.written()))
        #expect(close.code == .goingAway && close.reason == "no pong within 30 s")
        await pipeline.advance(by: .milliseconds(1))
        #expect(!pipeline.channel.isActive)
    }

    /// While the device reads nothing (the channel cannot take more writes), the link asks for no more reads, so a
    /// device sending pings without reading the pongs waits in its own socket; blocked for the stalled-connection
    /// timeout, the link is closed.
    @Test func aDeviceThatReadsNothingIsNotReadAndIsClosedOnceStalled() async throws {
        let pipeline = try await Pipeline { $0.stalledConnectionTimeout = .seconds(20) }
        try await pipeline.link()
        let reads = ProviderConnectionTimeTests.ReadCounter()
        let channel = pipeline.channel
        try await channel.testingEventLoop.executeInContext { try channel.pipeline.syncOperations.addHandler(reads, position: .first) }
        func setWritable(_ writable: Bool) async throws {
            channel.isWritable = writable
            try await channel.testingEventLoop.executeInContext { channel.pipeline.fireChannelWritabilityChanged() }
        }
        try await setWritable(false)
        try await channel.testingEventLoop.executeInContext { channel.read() }
        #expect(reads.count == 0)
        await pipeline.advance(by: .seconds(10))
        try await setWritable(true)
        #expect(reads.count == 1)  // the held read goes through

        try await setWritable(false)
        await pipeline.advance(by: .seconds(19))
        #expect(Self.close(in: try await pipeline.written()) == nil)
        await pipeline.advance(by: .seconds(1))
        let close = try #require(Self.close(in: try await pipeline.written()))
        #expect(close.code == .policyViolation && close.reason == "the device read nothing for 20 s")
        await pipeline.advance(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(pipeline.metricsText.contains(#"herald_device_link_closed_total{reason="stalled"} 1"#))
    }

    @Test func aLinkWithoutAHelloIsClosedAtTheDeadline() async throws {
        let pipeline = try await Pipeline { $0.deviceAuthenticationTimeout = .seconds(10) }
        _ = try await pipeline.nextFrame()  // the challenge
        await pipeline.advance(by: .seconds(9))
        #expect(try await pipeline.written().isEmpty)
        await pipeline.advance(by: .seconds(1))
        let close = try #require(Self.close(in: try await pipeline.written()))
        #expect(close.code == .policyViolation && close.reason == "no hello within 10 s")
        // The device gets the close timeout to answer the close frame; then the link is cut.
        await pipeline.advance(by: .seconds(5))
        #expect(!pipeline.channel.isActive)
    }
}
