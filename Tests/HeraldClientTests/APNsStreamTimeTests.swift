import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import HeraldClient

/// A client connection's timers on virtual time: idle pings, a dead server found, deadlines.
@Suite struct APNsStreamTimeTests {
    /// The stream handler on a testing channel (h2c: ready once active), frames in and out.
    struct Pipeline {
        let channel = NIOAsyncTestingChannel()
        let handler: NIOLoopBound<APNsStreamHandler>

        init() async throws {
            let channel = self.channel
            handler = try await channel.testingEventLoop.executeInContext {
                let handler = APNsStreamHandler(
                    gauge: ConnectionGauge(), tokens: nil,
                    timing: .init(pingInterval: .seconds(60), pingTimeout: .seconds(10), resolution: .milliseconds(100)),
                    usesTLS: false, ready: channel.eventLoop.makePromise(),
                    logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                )
                try channel.pipeline.syncOperations.addHandler(handler)
                return NIOLoopBound(handler, eventLoop: channel.eventLoop)
            }
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).get()
            try await channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([]))))
        }

        func written() async throws -> [HTTP2Frame.FramePayload] {
            var frames: [HTTP2Frame.FramePayload] = []
            while let frame = try await channel.readOutbound(as: HTTP2Frame.self) { frames.append(frame.payload) }
            return frames
        }

        func advance(by time: TimeAmount) async {
            await channel.testingEventLoop.advanceTime(by: time)
        }
    }

    private static func isPing(_ payload: HTTP2Frame.FramePayload) -> Bool {
        if case .ping(_, ack: false) = payload { true } else { false }
    }

    @Test func anIdleConnectionIsPingedAndKeptWhileItAnswers() async throws {
        let pipeline = try await Pipeline()
        _ = try await pipeline.written()  // the connection window
        await pipeline.advance(by: .seconds(59))
        #expect(try await pipeline.written().contains(where: Self.isPing) == false)
        await pipeline.advance(by: .seconds(1))
        let ping = try await pipeline.written().first { Self.isPing($0) }
        guard case .ping(let data, _) = ping else {
            Issue.record("no ping after the interval")
            return
        }
        try await pipeline.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .ping(data, ack: true)))
        await pipeline.advance(by: .seconds(30))
        #expect(pipeline.channel.isActive)
    }

    @Test func aServerThatDoesNotAnswerThePingIsLeft() async throws {
        let pipeline = try await Pipeline()
        await pipeline.advance(by: .seconds(60))
        #expect(try await pipeline.written().contains(where: Self.isPing))
        await pipeline.advance(by: .seconds(9))
        #expect(pipeline.channel.isActive)
        await pipeline.advance(by: .seconds(1))
        #expect(!pipeline.channel.isActive)
    }

    /// A request past its deadline fails as a timeout and its stream is cancelled.
    @Test func aRequestPastItsDeadlineTimesOut() async throws {
        let pipeline = try await Pipeline()
        let eventLoop = pipeline.channel.testingEventLoop
        let handler = pipeline.handler
        let answer = try await eventLoop.executeInContext {
            let promise = eventLoop.makePromise(of: StreamResponse.self)
            handler.value.submit(
                StreamRequest(headers: [":method": "POST"], body: ByteBuffer(), deadline: eventLoop.now + .seconds(10), promise: promise))
            return promise.futureResult
        }
        await pipeline.advance(by: .seconds(10))
        await #expect(throws: StreamFailure.self) { try await answer.get() }
        let cancelled = try await pipeline.written().contains { if case .rstStream(.cancel) = $0 { true } else { false } }
        #expect(cancelled)
    }
}
