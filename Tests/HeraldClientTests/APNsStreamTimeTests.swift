import HeraldHTTP2
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import HeraldClient

/// A client connection's timers on virtual time: idle pings, a dead server found, deadlines.
@Suite struct APNsStreamTimeTests {
    /// The stream handler on a testing channel (h2c: ready once active), bytes in and frames read out of them.
    struct Pipeline {
        let channel = NIOAsyncTestingChannel()
        let handler: NIOLoopBound<APNsStreamHandler>
        /// Cuts what the client wrote into frames, its preface first.
        final class Frames {
            var reader = FrameReader()
        }
        let frames = Frames()

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
            var settings = ByteBuffer()
            FrameWriter.settings([], into: &settings)
            try await channel.writeInbound(settings)
        }

        /// The frames the client wrote since the last call.
        func written() async throws -> [(header: FrameHeader, payload: ByteBuffer)] {
            while var bytes = try await channel.readOutbound(as: ByteBuffer.self) { frames.reader.append(&bytes) }
            var written: [(header: FrameHeader, payload: ByteBuffer)] = []
            while let frame = try frames.reader.next() { written.append(frame) }
            return written
        }

        func advance(by time: TimeAmount) async {
            await channel.testingEventLoop.advanceTime(by: time)
        }
    }

    private static func isPing(_ frame: (header: FrameHeader, payload: ByteBuffer)) -> Bool {
        frame.header.knownType == .ping && frame.header.flags & FrameHeader.Flag.ack == 0
    }

    @Test func anIdleConnectionIsPingedAndKeptWhileItAnswers() async throws {
        let pipeline = try await Pipeline()
        _ = try await pipeline.written()  // the preface, SETTINGS, the connection window
        await pipeline.advance(by: .seconds(59))
        #expect(try await pipeline.written().contains(where: Self.isPing) == false)
        await pipeline.advance(by: .seconds(1))
        let ping = try await pipeline.written().first { Self.isPing($0) }
        guard let opaque = ping?.payload.getInteger(at: ping!.payload.readerIndex, as: UInt64.self) else {
            Issue.record("no ping after the interval")
            return
        }
        var acknowledgement = ByteBuffer()
        FrameWriter.pingAcknowledgement(opaque, into: &acknowledgement)
        try await pipeline.channel.writeInbound(acknowledgement)
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
                StreamRequest(headers: [(":method", "POST")], body: ByteBuffer(), deadline: eventLoop.now + .seconds(10), promise: promise))
            return promise.futureResult
        }
        await pipeline.advance(by: .seconds(10))
        await #expect(throws: StreamFailure.self) { try await answer.get() }
        let cancelled = try await pipeline.written().contains {
            $0.header.knownType == .resetStream
                && $0.payload.getInteger(at: $0.payload.readerIndex, as: UInt32.self) == FrameErrorCode.cancel.rawValue
        }
        #expect(cancelled)
    }
}
