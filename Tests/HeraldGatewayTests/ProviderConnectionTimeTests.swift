import Foundation
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldGateway

/// A provider connection's timers on virtual time: the handler `herald serve` puts after HTTP/2, on a testing
/// channel whose clock the test moves.
@Suite struct ProviderConnectionTimeTests {
    /// The provider handler on a testing channel, frames in and out.
    struct Pipeline {
        let channel: NIOAsyncTestingChannel
        let connection: NIOLoopBound<ProviderConnection>

        init(configure: (inout GatewayConfiguration) -> Void = { _ in }) async throws {
            var configuration = GatewayConfiguration()
            configure(&configuration)
            let store = try SQLiteStore(path: TemporaryPath.make("herald-time", suffix: ".sqlite"))
            let metrics = GatewayMetrics()
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let writer = NotificationWriter(
                store: store, batchLimit: configuration.writeBatchLimit, queueLimit: configuration.writeQueueLimit,
                metrics: metrics, logger: logger, onCommitted: { _ in }
            )
            let processor = ProviderRequestProcessor(
                configuration: configuration, directory: Directory(store: store, timeToLive: configuration.directoryTimeToLive),
                writer: writer, hub: DeviceHub(), clock: SystemWallClock(), metrics: metrics, logger: logger
            )
            channel = NIOAsyncTestingChannel()
            let (channel, settings) = (self.channel, configuration)
            connection = try await channel.testingEventLoop.executeInContext {
                let connection = ProviderConnection(channel: channel, configuration: settings)
                try channel.pipeline.syncOperations.addHandler(
                    ProviderConnectionHandler(
                        connection: connection, processor: processor, metrics: metrics, idleTimeout: settings.idleTimeout
                    ))
                return NIOLoopBound(connection, eventLoop: channel.eventLoop)
            }
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).get()
        }

        /// Every frame written so far.
        func written() async throws -> [HTTP2Frame] {
            var frames: [HTTP2Frame] = []
            while let frame = try await channel.readOutbound(as: HTTP2Frame.self) { frames.append(frame) }
            return frames
        }

        /// The GOAWAY among `frames`: its last stream id and its reason.
        static func goAway(in frames: [HTTP2Frame]) -> (lastStreamID: HTTP2StreamID, reason: String?)? {
            for frame in frames {
                if case .goAway(let last, _, let data) = frame.payload {
                    let reason = data.flatMap { try? JSONValue.parse(Data($0.readableBytesView)) }?["reason"]?.stringValue
                    return (last, reason)
                }
            }
            return nil
        }
    }

    @Test func anIdleConnectionGetsGoAwayIdleTimeoutAndCloses() async throws {
        let pipeline = try await Pipeline { $0.idleTimeout = .seconds(3600) }
        _ = try await pipeline.written()  // the connection window
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(3599))
        #expect(Pipeline.goAway(in: try await pipeline.written()) == nil)
        #expect(pipeline.channel.isActive)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(1))
        let goAway = try #require(Pipeline.goAway(in: try await pipeline.written()))
        #expect(goAway.reason == "IdleTimeout" && goAway.lastStreamID == .rootStream)
        #expect(!pipeline.channel.isActive)
    }

    /// Any frame read or written moves idleness a full timeout on.
    @Test func activityPostponesIdleness() async throws {
        let pipeline = try await Pipeline { $0.idleTimeout = .seconds(60) }
        _ = try await pipeline.written()
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(50))
        try await pipeline.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 1), ack: false)))
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(50))  // 100 s in, 50 s after the ping
        #expect(Pipeline.goAway(in: try await pipeline.written()) == nil)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(10))
        #expect(Pipeline.goAway(in: try await pipeline.written())?.reason == "IdleTimeout")
    }

    /// A request opened and never finished cannot hold the connection: idle, then the grace period, then closed.
    @Test func aStreamThatNeverEndsCannotHoldTheConnectionOpen() async throws {
        let pipeline = try await Pipeline {
            $0.idleTimeout = .seconds(5)
            $0.shutdownGracePeriod = .seconds(10)
        }
        var headers = HPACKHeaders()
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":scheme", value: "https")
        headers.add(name: ":path", value: "/3/device/" + String(repeating: "ab", count: 32))
        try await pipeline.channel.writeInbound(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: headers, endStream: false))))
        _ = try await pipeline.written()
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(5))  // idle: closing starts, the GOAWAY waits
        #expect(Pipeline.goAway(in: try await pipeline.written()) == nil)
        #expect(pipeline.channel.isActive)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(10))  // the grace period ends it
        let goAway = try #require(Pipeline.goAway(in: try await pipeline.written()))
        #expect(goAway.reason == "IdleTimeout" && goAway.lastStreamID == 1)
        #expect(!pipeline.channel.isActive)
    }

    /// Shutdown with nothing in flight: the GOAWAY at once, no waiting for the grace period.
    @Test func shutdownOfAQuietConnectionIsImmediate() async throws {
        let pipeline = try await Pipeline()
        _ = try await pipeline.written()
        let connection = pipeline.connection
        try await pipeline.channel.testingEventLoop.executeInContext { connection.value.startDraining(.shutdown) }
        #expect(Pipeline.goAway(in: try await pipeline.written())?.reason == "Shutdown")
        #expect(!pipeline.channel.isActive)
    }
}
