import HeraldHTTP2
import NIOCore
import NIOHPACK
import Testing

@testable import HeraldGateway

/// RFC 9113's rules on the server side of a connection, frame by frame, with the client's header blocks written by
/// swift-nio-http2's encoder.
struct HTTP2ServerConnectionTests {
    private typealias Event = HTTP2ServerConnection.Event

    /// A client's side of one connection: frames in, the server's frames out.
    private struct Client {
        var server: HTTP2ServerConnection
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
        /// The time frames arrive at, moved by the tests of the flood limits.
        var now = NIODeadline.uptimeNanoseconds(1_000_000_000)

        init(_ configure: (inout HTTP2ServerConnection.Settings) -> Void = { _ in }) {
            var settings = HTTP2ServerConnection.Settings()
            configure(&settings)
            server = HTTP2ServerConnection(settings: settings)
        }

        mutating func send(_ type: UInt8, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8] = []) throws(ConnectionFault) -> Event? {
            try server.receive(FrameHeader(length: payload.count, type: type, flags: flags, streamID: stream), ByteBuffer(bytes: payload), now: now)
        }

        mutating func send(_ type: FrameType, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8] = []) throws(ConnectionFault) -> Event? {
            try send(type.rawValue, flags: flags, stream: stream, payload)
        }

        /// The client's SETTINGS, and its acknowledgement of the server's (which puts the server's stream limit in force).
        mutating func settings(_ pairs: [(UInt16, UInt32)] = []) throws(ConnectionFault) {
            var payload = ByteBuffer()
            for (identifier, value) in pairs {
                payload.writeInteger(identifier)
                payload.writeInteger(value)
            }
            _ = try send(.settings, stream: 0, Array(payload.readableBytesView))
            _ = try send(.settings, flags: FrameHeader.Flag.ack, stream: 0)
        }

        mutating func block(_ fields: [(String, String)], indexing: HPACKIndexing = .indexable) throws -> [UInt8] {
            var headers = HPACKHeaders()
            for (name, value) in fields { headers.add(name: name, value: value, indexing: indexing) }
            try encoder.beginEncoding(allocator: ByteBufferAllocator())
            try encoder.append(headers: headers)
            return Array(try encoder.endEncoding().readableBytesView)
        }

        mutating func request(_ stream: UInt32, endStream: Bool = true, extra: [(String, String)] = []) throws -> Event? {
            let fields = [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/aa"), (":authority", "localhost")] + extra
            let flags = FrameHeader.Flag.endHeaders | (endStream ? FrameHeader.Flag.endStream : 0)
            return try send(.headers, flags: flags, stream: stream, try block(fields))
        }

        /// The frames the server wrote since the last call.
        mutating func sent() throws -> [(header: FrameHeader, payload: [UInt8])] {
            var reader = FrameReader(maximumFrameSize: 1 << 24)
            var bytes = ByteBuffer(bytes: FrameReader.preface)
            bytes.writeBuffer(&server.output)
            server.output.clear()
            reader.append(&bytes)
            var frames: [(header: FrameHeader, payload: [UInt8])] = []
            while let (header, payload) = try reader.next() { frames.append((header, Array(payload.readableBytesView))) }
            return frames
        }
    }

    private func fault(_ code: FrameErrorCode, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected a connection error \(code)")
        } catch let fault as ConnectionFault {
            #expect(fault.code == code, "\(fault.reason)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func theServerSpeaksFirstAndTheClientMustStartWithSettings() throws {
        var client = Client()
        let opening = try client.sent()
        #expect(opening.map(\.header.knownType) == [.settings, .windowUpdate])
        #expect(opening[0].payload.count == 36)  // six settings
        fault(.protocolError) { _ = try client.send(.ping, stream: 0, [UInt8](repeating: 0, count: 8)) }
        var other = Client()
        try other.settings([(0x4, 100_000)])
        let answer = try other.sent().last!
        #expect(answer.header.knownType == .settings && answer.header.flags == FrameHeader.Flag.ack)
    }

    @Test func aRequestIsReadAndAnswered() throws {
        var client = Client()
        try client.settings()
        _ = try client.sent()
        guard case .request(let stream, let fields, let endStream) = try client.request(1, endStream: false, extra: [("apns-topic", "t")]) else {
            Issue.record("no request")
            return
        }
        #expect(stream == 1 && !endStream && fields.last! == ("apns-topic", "t") && fields.count == 5)
        guard case .data(1, let bytes, true) = try client.send(.data, flags: FrameHeader.Flag.endStream, stream: 1, Array("{}".utf8)) else {
            Issue.record("no body")
            return
        }
        #expect(Array(bytes.readableBytesView) == Array("{}".utf8))
        client.server.respond(stream: 1, status: 200, fields: [("apns-id", "x")], body: nil)
        let answer = try client.sent()
        #expect(answer.count == 1 && answer[0].header.flags == FrameHeader.Flag.endHeaders | FrameHeader.Flag.endStream)
        #expect(client.server.openStreams == 0)
    }

    @Test func aBlockSpreadOverContinuationFramesIsOneRequestAndMayNotBeInterrupted() throws {
        var client = Client()
        try client.settings()
        let block = try client.block([(":method", "POST"), (":path", "/3/device/aa"), ("apns-topic", "com.example.app")])
        let thirds = stride(from: 0, to: block.count, by: block.count / 3 + 1).map { Array(block[$0..<min($0 + block.count / 3 + 1, block.count)]) }
        #expect(try client.send(.headers, flags: FrameHeader.Flag.endStream, stream: 1, thirds[0]) == nil)
        #expect(try client.send(.continuation, stream: 1, thirds[1]) == nil)
        guard case .request(1, let fields, true) = try client.send(.continuation, flags: FrameHeader.Flag.endHeaders, stream: 1, thirds[2]) else {
            Issue.record("no request")
            return
        }
        #expect(fields.count == 3)
        _ = try client.send(.headers, stream: 3, [0x82])
        fault(.protocolError) { _ = try client.send(.ping, stream: 0, [UInt8](repeating: 0, count: 8)) }
    }

    @Test func streamsPastTheLimitAreRefusedButTheirBlocksStillCount() throws {
        var client = Client { $0.maximumConcurrentStreams = 1 }
        try client.settings()
        _ = try client.request(1)
        _ = try client.sent()
        // Refused, but its new indexed field enters both tables, and the next request names it by index.
        #expect(try client.request(3, extra: [("x-added", "by-a-refused-stream")]) == nil)
        #expect(try client.sent().map { $0.header.knownType } == [.resetStream])
        client.server.respond(stream: 1, status: 200, fields: [], body: nil)
        guard case .request(5, let fields, _) = try client.request(5, extra: [("x-added", "by-a-refused-stream")]) else {
            Issue.record("no request on stream 5")
            return
        }
        #expect(fields.last! == ("x-added", "by-a-refused-stream"))
        client.server.changeMaximumConcurrentStreams(to: 1000)
        #expect(try client.sent().last!.payload == [0, 3, 0, 0, 0x03, 0xE8])
    }

    @Test func streamNumbersMustBeOddAndRising() throws {
        var client = Client()
        try client.settings()
        fault(.protocolError) { _ = try client.request(2) }
        var rising = Client()
        try rising.settings()
        _ = try rising.request(5)
        fault(.streamClosed) { _ = try rising.request(3) }
    }

    @Test func dataIsCountedAgainstBothWindows() throws {
        var client = Client {
            $0.initialWindowSize = 100
            $0.connectionWindow = 65_535
        }
        try client.settings()
        _ = try client.request(1, endStream: false)
        _ = try client.sent()
        _ = try client.send(.data, stream: 1, [UInt8](repeating: 1, count: 60))
        #expect(try client.sent().map { $0.header.streamID } == [1])  // the stream's window topped up past half
        guard case .streamClosed(1, .flowControlError) = try client.send(.data, stream: 1, [UInt8](repeating: 1, count: 101)) else {
            Issue.record("the stream was not reset")
            return
        }
        #expect(try client.sent().last!.header.knownType == .resetStream)
        // The windows are topped up at half, so only a frame larger than what is left can overflow the connection's
        // (one larger than SETTINGS_MAX_FRAME_SIZE, which the frame layer refuses first, tests the rule here).
        var wide = Client {
            $0.initialWindowSize = 1 << 20
            $0.connectionWindow = 65_535
        }
        try wide.settings()
        _ = try wide.request(1, endStream: false)
        fault(.flowControlError) { _ = try wide.send(.data, stream: 1, [UInt8](repeating: 1, count: 65_536)) }
    }

    @Test func anAnswersBodyWaitsForTheClientsWindows() throws {
        var client = Client()
        try client.settings([(0x4, 0)])  // streams start with no send window
        _ = try client.request(1)
        _ = try client.sent()
        client.server.respond(stream: 1, status: 400, fields: [("content-type", "application/json")], body: ByteBuffer(string: "0123456789"))
        #expect(try client.sent().map { $0.header.knownType } == [.headers])
        _ = try client.send(.windowUpdate, stream: 1, [0, 0, 0, 4])
        let first = try client.sent()
        #expect(first.count == 1 && first[0].payload == Array("0123".utf8) && first[0].header.flags == 0)
        _ = try client.send(.windowUpdate, stream: 1, [0, 0, 0, 100])
        let rest = try client.sent()
        #expect(rest.count == 1 && rest[0].payload == Array("456789".utf8) && rest[0].header.flags == FrameHeader.Flag.endStream)
        #expect(client.server.openStreams == 0)
    }

    @Test func controlFramesFollowTheRules() throws {
        var client = Client()
        try client.settings()
        _ = try client.sent()
        _ = try client.send(.ping, stream: 0, [1, 2, 3, 4, 5, 6, 7, 8])
        let pong = try client.sent()
        #expect(pong.count == 1 && pong[0].header.flags == FrameHeader.Flag.ack && pong[0].payload == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(try client.send(0xFA, stream: 0, [1, 2, 3]) == nil)  // an unknown type is ignored
        _ = try client.request(1, endStream: false)
        guard case .streamClosed(1, .cancel) = try client.send(.resetStream, stream: 1, [0, 0, 0, 8]) else {
            Issue.record("the client's reset was not reported")
            return
        }
        guard case .goAway(1, 0) = try client.send(.goAway, stream: 0, [0, 0, 0, 1, 0, 0, 0, 0]) else {
            Issue.record("the client's GOAWAY was not reported")
            return
        }
        _ = try client.request(3, endStream: false)
        _ = try client.sent()
        #expect(try client.send(.windowUpdate, stream: 3, [0, 0, 0, 0]) == nil)  // 0 on a stream: that stream is reset
        #expect(try client.sent().map { $0.header.knownType } == [.resetStream])
        let broken: [(FrameErrorCode, (inout Client) throws -> Void)] = [
            (.frameSizeError, { _ = try $0.send(.ping, stream: 0, [1, 2, 3]) }),
            (.protocolError, { _ = try $0.send(.ping, stream: 1, [UInt8](repeating: 0, count: 8)) }),
            (.protocolError, { _ = try $0.send(.resetStream, stream: 99, [0, 0, 0, 8]) }),
            (.protocolError, { _ = try $0.send(.windowUpdate, stream: 0, [0, 0, 0, 0]) }),
            (.protocolError, { _ = try $0.send(.windowUpdate, stream: 9, [0, 0, 0, 1]) }),  // an idle stream
            (.flowControlError, { _ = try $0.send(.windowUpdate, stream: 0, [0x7F, 0xFF, 0xFF, 0xFF]) }),
            (.protocolError, { _ = try $0.send(.pushPromise, stream: 1, [0, 0, 0, 2]) }),
            (.protocolError, { try $0.settings([(0x2, 2)]) }),
            (.flowControlError, { try $0.settings([(0x4, 1 << 31)]) }),
            (.protocolError, { try $0.settings([(0x5, 100)]) }),
            (.frameSizeError, { _ = try $0.send(.settings, stream: 0, [0, 0, 0, 0, 0]) }),
            (.compressionError, { _ = try $0.send(.headers, flags: FrameHeader.Flag.endHeaders, stream: 7, [0x80]) }),
        ]
        for (code, frame) in broken {
            var fresh = Client()
            try fresh.settings()
            fault(code) { try frame(&fresh) }
        }
    }

    @Test func trailersMustEndTheRequestAndAnEarlyAnswerEndsTheStream() throws {
        var client = Client()
        try client.settings()
        _ = try client.request(1, endStream: false)
        guard case .trailers(1, let fields) = try client.send(.headers, flags: 0x5, stream: 1, try client.block([("x-trailer", "1")])) else {
            Issue.record("no trailers")
            return
        }
        #expect(fields.count == 1)
        _ = try client.request(3, endStream: false)
        guard case .streamClosed(3, .protocolError) = try client.send(.headers, flags: 0x4, stream: 3, try client.block([("x", "1")])) else {
            Issue.record("trailers without END_STREAM were accepted")
            return
        }
        guard case .streamClosed(1, .streamClosed) = try client.send(.headers, flags: 0x5, stream: 1, try client.block([("x", "2")])) else {
            Issue.record("a second set of trailers was accepted")
            return
        }
        _ = try client.request(5, endStream: false)
        _ = try client.sent()
        client.server.respond(stream: 5, status: 413, fields: [], body: nil)
        #expect(try client.sent().map { $0.header.knownType } == [.headers, .resetStream])
        client.server.goAway(.noError)
        #expect(try client.request(7) == nil)  // past our GOAWAY: refused, never processed
        let closing = try client.sent()
        #expect(closing.map { $0.header.knownType } == [.goAway, .resetStream])
        #expect(closing[0].payload.prefix(4) == [0, 0, 0, 5] && closing[1].header.streamID == 7 && closing[1].payload == [0, 0, 0, 7])
    }

    @Test func floodsEndTheConnectionWithEnhanceYourCalm() throws {
        var client = Client()
        try client.settings()
        _ = try client.request(1, endStream: false)
        _ = try client.send(.data, stream: 1, [])  // one empty DATA frame is allowed
        _ = try client.send(.data, stream: 1, [1])
        _ = try client.send(.data, stream: 1, [])
        fault(.enhanceYourCalm) { _ = try client.send(.data, stream: 1, []) }

        var continuations = Client()
        try continuations.settings()
        let block = try continuations.block([(":method", "POST"), (":path", "/3/device/aa")])
        _ = try continuations.send(.headers, stream: 1, [block[0]])
        for byte in block.dropFirst().prefix(5) { _ = try continuations.send(.continuation, stream: 1, [byte]) }
        fault(.enhanceYourCalm) { _ = try continuations.send(.continuation, stream: 1, []) }

        // Rapid reset: 200 streams opened and reset by the client in one window are allowed, the 201st is not; in the
        // next window the count starts again.
        var resets = Client()
        try resets.settings()
        for stream in stride(from: UInt32(1), through: 399, by: 2) {
            _ = try resets.request(stream, endStream: false)
            _ = try resets.send(.resetStream, stream: stream, [0, 0, 0, 8])
        }
        resets.now = resets.now + .seconds(31)
        _ = try resets.request(401, endStream: false)
        _ = try resets.send(.resetStream, stream: 401, [0, 0, 0, 8])
        resets.now = resets.now + .seconds(1)
        for stream in stride(from: UInt32(403), through: 799, by: 2) {
            _ = try resets.request(stream, endStream: false)
            _ = try resets.send(.resetStream, stream: stream, [0, 0, 0, 8])
        }
        fault(.enhanceYourCalm) {
            _ = try resets.request(801, endStream: false)
            _ = try resets.send(.resetStream, stream: 801, [0, 0, 0, 8])
        }

        // DATA that tops the connection's window up does not start the count again.
        var resetsWithData = Client { $0.connectionWindow = 65_535 }
        try resetsWithData.settings()
        for stream in stride(from: UInt32(1), through: 399, by: 2) {
            _ = try resetsWithData.request(stream, endStream: false)
            _ = try resetsWithData.send(.data, stream: stream, [UInt8](repeating: 1, count: 16_384))
            _ = try resetsWithData.send(.resetStream, stream: stream, [0, 0, 0, 8])
        }
        fault(.enhanceYourCalm) {
            _ = try resetsWithData.request(401, endStream: false)
            _ = try resetsWithData.send(.resetStream, stream: 401, [0, 0, 0, 8])
        }

        var pings = Client()
        try pings.settings()  // the first control frame
        for _ in 0..<199 { _ = try pings.send(.ping, stream: 0, [UInt8](repeating: 0, count: 8)) }
        _ = try pings.send(.ping, flags: FrameHeader.Flag.ack, stream: 0, [UInt8](repeating: 0, count: 8))  // acks are free
        fault(.enhanceYourCalm) { _ = try pings.send(.ping, stream: 0, [UInt8](repeating: 0, count: 8)) }

        var errors = Client()
        try errors.settings()
        for stream in stride(from: UInt32(1), through: 399, by: 2) { _ = try errors.send(.priority, stream: stream, [0]) }
        fault(.enhanceYourCalm) { _ = try errors.send(.priority, stream: 401, [0]) }
    }

    @Test func lateFramesForAStreamClosedLatelyAreIgnored() throws {
        var client = Client { $0.maximumConcurrentStreams = 1 }
        try client.settings()
        _ = try client.request(1, endStream: false)
        #expect(try client.request(3, endStream: false) == nil)  // refused
        _ = try client.sent()
        // The client sent this before it read the refusal: counted against the connection's window, not answered.
        #expect(try client.send(.data, stream: 3, [1, 2, 3]) == nil)
        #expect(try client.sent().isEmpty)
        // Once 32 more streams have closed, stream 3 is forgotten and a frame for it is reset again.
        client.server.respond(stream: 1, status: 200, fields: [], body: nil)
        for stream in stride(from: UInt32(5), through: 67, by: 2) {
            _ = try client.request(stream)
            client.server.respond(stream: stream, status: 200, fields: [], body: nil)
        }
        _ = try client.sent()
        _ = try client.send(.data, stream: 3, [1])
        #expect(try client.sent().map { $0.header.knownType } == [.resetStream])
    }

    @Test func aStreamLimitAppliesOnceTheClientAcknowledgesIt() throws {
        var client = Client { $0.maximumConcurrentStreams = 1 }
        _ = try client.send(.settings, stream: 0)  // no acknowledgement yet: the first requests may come before it
        for stream in stride(from: UInt32(1), through: 9, by: 2) { #expect(try client.request(stream, endStream: false) != nil) }
        _ = try client.send(.settings, flags: FrameHeader.Flag.ack, stream: 0)
        #expect(client.server.maximumConcurrentStreams == 1)
        _ = try client.sent()
        #expect(try client.request(11) == nil)
        #expect(try client.sent().map { $0.header.knownType } == [.resetStream])
        // A raise applies at once; a cut waits for its acknowledgement.
        client.server.changeMaximumConcurrentStreams(to: 1000)
        #expect(client.server.maximumConcurrentStreams == 1000)
        client.server.changeMaximumConcurrentStreams(to: 1)
        #expect(client.server.maximumConcurrentStreams == 1000)
        _ = try client.send(.settings, flags: FrameHeader.Flag.ack, stream: 0)
        #expect(client.server.maximumConcurrentStreams == 1000)
        _ = try client.send(.settings, flags: FrameHeader.Flag.ack, stream: 0)
        #expect(client.server.maximumConcurrentStreams == 1)
    }
}
