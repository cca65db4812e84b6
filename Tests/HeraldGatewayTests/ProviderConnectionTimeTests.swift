import Foundation
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Synchronization
import Testing

@testable import HeraldGateway

/// A provider connection's timers on virtual time: the handler `herald serve` puts after HTTP/2, on a testing
/// channel whose clock the test moves.
@Suite struct ProviderConnectionTimeTests {
    /// The provider handler on a testing channel, frames in and out.
    struct Pipeline {
        let channel: NIOAsyncTestingChannel
        let connection: NIOLoopBound<ProviderConnection>

        /// - Parameter sendsSettings: Whether the client's SETTINGS (the first frame after its preface) arrives at once.
        init(sendsSettings: Bool = true, configure: (inout GatewayConfiguration) -> Void = { _ in }) async throws {
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
                        connection: connection, processor: processor, metrics: metrics, configuration: settings
                    ))
                return NIOLoopBound(connection, eventLoop: channel.eventLoop)
            }
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).get()
            if sendsSettings { try await channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([])))) }
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

    /// A client that has not sent the HTTP/2 preface (and TLS before it) within the handshake timeout of its accept is
    /// cut off, so that connections opened and left silent cannot pile up for the hour of the idle timeout.
    @Test func aConnectionWithoutThePrefaceInTimeIsClosed() async throws {
        let silent = try await Pipeline(sendsSettings: false) { $0.providerHandshakeTimeout = .seconds(10) }
        await silent.channel.testingEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(silent.channel.isActive)
        await silent.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!silent.channel.isActive)

        let late = try await Pipeline(sendsSettings: false) { $0.providerHandshakeTimeout = .seconds(10) }
        await late.channel.testingEventLoop.advanceTime(by: .seconds(9))
        try await late.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([]))))
        await late.channel.testingEventLoop.advanceTime(by: .seconds(60))
        #expect(late.channel.isActive)
    }

    /// While the client reads nothing (the connection cannot take more writes), the handler asks for no more reads,
    /// and resumes once it can write; writes blocked for the stalled-connection timeout close the connection.
    @Test func aClientThatStopsReadingIsNotReadAndIsClosedOnceStalled() async throws {
        let pipeline = try await Pipeline { $0.stalledConnectionTimeout = .seconds(30) }
        let reads = ReadCounter()
        try await pipeline.channel.testingEventLoop.executeInContext {
            try pipeline.channel.pipeline.syncOperations.addHandler(reads, position: .first)
        }
        func setWritable(_ writable: Bool) async throws {
            pipeline.channel.isWritable = writable
            try await pipeline.channel.testingEventLoop.executeInContext { pipeline.channel.pipeline.fireChannelWritabilityChanged() }
        }
        func read() async throws {
            try await pipeline.channel.testingEventLoop.executeInContext { pipeline.channel.read() }
        }
        try await read()
        #expect(reads.count == 1)
        try await setWritable(false)
        try await read()
        #expect(reads.count == 1)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(20))
        try await setWritable(true)  // the held read goes through
        #expect(reads.count == 2)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(20))
        #expect(pipeline.channel.isActive)  // 40 s in, but never 30 s blocked at once

        try await setWritable(false)
        await pipeline.channel.testingEventLoop.advanceTime(by: .milliseconds(29_999))
        #expect(pipeline.channel.isActive)
        await pipeline.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!pipeline.channel.isActive)
    }

    /// Counts the reads that reach the head of the pipeline (the socket).
    final class ReadCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = Any
        private let reads = Mutex(0)

        var count: Int { reads.withLock { $0 } }

        func read(context: ChannelHandlerContext) {
            reads.withLock { $0 += 1 }
            context.read()
        }
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
