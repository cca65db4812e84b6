import HeraldHTTP2
import NIOCore
import Testing

@testable import HeraldClient

/// The client side of HTTP/2 as plain values: what it writes for requests, and what it makes of the server's frames.
@Suite struct HTTP2ClientConnectionTests {
    typealias Frame = (header: FrameHeader, payload: ByteBuffer)

    /// Frames as a server reads them: the preface first, and one HPACK decoder for the connection's header blocks.
    struct ServerSide {
        var reader = FrameReader()
        var decoder = HeaderBlockDecoder()

        /// The frames in what the client wrote since the last call (the output is cleared).
        mutating func read(_ connection: inout HTTP2ClientConnection) throws -> [Frame] {
            reader.append(&connection.output)
            connection.output.clear()
            var frames: [Frame] = []
            while let frame = try reader.next() { frames.append(frame) }
            return frames
        }

        mutating func fields(of frame: Frame) throws -> [(name: String, value: String)] {
            try frame.payload.withUnsafeReadableBytes { try decoder.decode($0) }
        }
    }

    static func isNothing(_ event: HTTP2ClientConnection.Event?) -> Bool { event == nil }

    static func settings(_ values: [(UInt16, UInt32)] = []) -> Frame {
        var bytes = ByteBuffer()
        FrameWriter.settings(values, into: &bytes)
        return frame(bytes)
    }

    static func frame(_ bytes: ByteBuffer) -> Frame {
        var reader = FrameReader(maximumFrameSize: 16_777_215, readsPreface: false)
        var bytes = bytes
        reader.append(&bytes)
        return try! reader.next()!
    }

    static func request(token: String, jwt: String = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0.signature") -> [(name: String, value: String)] {
        [
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(token)"), (":authority", "localhost"),
            ("apns-push-type", "alert"), ("apns-topic", "com.example.app"), ("apns-id", "0F0E0D0C-0B0A-0908-0706-050403020100"),
            ("authorization", "bearer \(jwt)"),
        ]
    }

    /// A connection that has exchanged SETTINGS with the server.
    static func open(_ values: [(UInt16, UInt32)] = []) throws -> (HTTP2ClientConnection, ServerSide) {
        var connection = HTTP2ClientConnection()
        var server = ServerSide()
        _ = try server.read(&connection)
        let settings = settings(values)
        _ = try connection.receive(settings.header, settings.payload)
        _ = try server.read(&connection)
        return (connection, server)
    }

    @Test func startsWithThePrefaceItsSettingsAndAWiderWindow() throws {
        var connection = HTTP2ClientConnection()
        var server = ServerSide()
        let frames = try server.read(&connection)
        #expect(frames.map(\.header.knownType) == [.settings, .windowUpdate])
        var settings = frames[0].payload
        var announced: [UInt16: UInt32] = [:]
        while let id = settings.readInteger(as: UInt16.self), let value = settings.readInteger(as: UInt32.self) { announced[id] = value }
        #expect(announced == [0x2: 0, 0x3: 100, 0x4: 1 << 20, 0x6: 16_384])
        #expect(frames[1].payload.getInteger(at: frames[1].payload.readerIndex, as: UInt32.self) == UInt32((1 << 20) - 65_535))
    }

    /// The first SETTINGS is acknowledged and passed up with the server's stream limit; a later one says it is not the first.
    @Test func settingsAreAcknowledgedAndTheirLimitPassedUp() throws {
        var connection = HTTP2ClientConnection()
        var server = ServerSide()
        _ = try server.read(&connection)
        let first = Self.settings([(0x3, 1000)])
        guard case .settings(let limit, let isFirst) = try connection.receive(first.header, first.payload) else {
            Issue.record("no settings event")
            return
        }
        #expect(limit == 1000 && isFirst)
        let acknowledgement = try server.read(&connection)
        #expect(acknowledgement.count == 1 && acknowledgement[0].header.flags == FrameHeader.Flag.ack)
        let second = Self.settings()
        guard case .settings(nil, false) = try connection.receive(second.header, second.payload) else {
            Issue.record("the second SETTINGS was not passed up as such")
            return
        }
    }

    /// Repeating fields go into the server's table once: the second request sends its JWT and topic as one byte each,
    /// and the server's decoder reads both requests' fields as they were.
    @Test func repeatingFieldsAreSentAsIndexesAfterTheFirstRequest() throws {
        var (connection, server) = try Self.open()
        connection.request(stream: 1, fields: Self.request(token: "aa"), body: ByteBuffer())
        let first = try server.read(&connection)
        connection.request(stream: 3, fields: Self.request(token: "bb"), body: ByteBuffer())
        let second = try server.read(&connection)
        #expect(first.count == 1 && second.count == 1)
        #expect(first[0].header.flags == FrameHeader.Flag.endHeaders | FrameHeader.Flag.endStream)
        #expect(try server.fields(of: first[0]).map { "\($0.name): \($0.value)" } == Self.request(token: "aa").map { "\($0.name): \($0.value)" })
        #expect(try server.fields(of: second[0]).map { "\($0.name): \($0.value)" } == Self.request(token: "bb").map { "\($0.name): \($0.value)" })
        // The second block: 4 one-byte indexes for the authority, push type, topic and JWT, the static method and
        // scheme, and the literals of the path and apns-id.
        #expect(second[0].header.length < 80, "the second block took \(second[0].header.length) bytes")
        #expect(first[0].header.length > 150)
    }

    /// The encoder sends a field as the same place of the last request was sent when it is the same field: a topic that
    /// changes (a new table entry, which moves every index remembered, the JWT's after it too), changes back (an older
    /// entry) and stays; a new JWT; a request with one field more. The server's decoder reads each as it was sent.
    @Test func fieldsThatChangeBetweenRequestsAreReadAsSent() throws {
        var (connection, server) = try Self.open()
        func request(token: String, topic: String, jwt: String = "a.b.c", collapseID: String? = nil) -> [(name: String, value: String)] {
            var fields = Self.request(token: token, jwt: jwt).map { $0.name == "apns-topic" ? ($0.name, topic) : $0 }
            if let collapseID { fields.insert(("apns-collapse-id", collapseID), at: 5) }
            return fields
        }
        let requests = [
            request(token: "aa", topic: "com.a"), request(token: "bb", topic: "com.a"), request(token: "cc", topic: "com.b"),
            request(token: "dd", topic: "com.a"), request(token: "ee", topic: "com.a"), request(token: "ff", topic: "com.a", jwt: "d.e.f"),
            request(token: "gg", topic: "com.a", jwt: "d.e.f", collapseID: "c1"), request(token: "hh", topic: "com.a", jwt: "a.b.c"),
        ]
        var lengths: [Int] = []
        for (number, fields) in requests.enumerated() {
            connection.request(stream: UInt32(2 * number + 1), fields: fields, body: ByteBuffer())
            let block = try server.read(&connection)[0]
            #expect(try server.fields(of: block).map { "\($0.name): \($0.value)" } == fields.map { "\($0.name): \($0.value)" })
            lengths.append(block.header.length)
        }
        // The repeat of the first request's fields and the return to an older topic took indexes, not literals.
        #expect(lengths[1] < lengths[0] && lengths[3] == lengths[1] && lengths[4] == lengths[1])
    }

    /// A server that allows no table gets a size update of 0 first and no indexes.
    @Test func aServerWithoutATableGetsNoIndexes() throws {
        var (connection, server) = try Self.open([(0x1, 0)])
        connection.request(stream: 1, fields: Self.request(token: "aa"), body: ByteBuffer())
        connection.request(stream: 3, fields: Self.request(token: "aa"), body: ByteBuffer())
        let frames = try server.read(&connection)
        #expect(frames[0].payload.getInteger(at: frames[0].payload.readerIndex, as: UInt8.self) == 0x20)
        #expect(try server.fields(of: frames[0]).count == 8)
        #expect(try server.fields(of: frames[1]).count == 8)
        #expect(frames[1].header.length == frames[0].header.length - 1)  // the same literals, without the size update
    }

    /// A header block above the server's frame size goes out as HEADERS and CONTINUATIONs that join up.
    @Test func aLargeHeaderBlockIsCutIntoContinuations() throws {
        var (connection, server) = try Self.open()
        server.decoder = HeaderBlockDecoder(maximumListSize: 1 << 20)
        let jwt = String(repeating: "j", count: 20_000)
        connection.request(stream: 1, fields: Self.request(token: "aa", jwt: jwt), body: ByteBuffer(string: "{}"))
        let frames = try server.read(&connection)
        #expect(frames.map(\.header.knownType) == [.headers, .continuation, .data])
        #expect(frames[0].header.flags == 0 && frames[1].header.flags == FrameHeader.Flag.endHeaders)
        var block = ByteBuffer()
        for var fragment in frames.prefix(2).map(\.payload) { block.writeBuffer(&fragment) }
        let fields = try block.withUnsafeReadableBytes { try server.decoder.decode($0) }
        #expect(fields.last?.value == "bearer " + jwt)
        #expect(frames[2].header.flags == FrameHeader.Flag.endStream)
    }

    /// Bodies wait for the connection's send window and go out when the server widens it, in order.
    @Test func bodiesWaitForTheServersWindow() throws {
        var (connection, server) = try Self.open()
        let body = ByteBuffer(repeating: 0x7B, count: 40_000)
        connection.request(stream: 1, fields: Self.request(token: "aa"), body: body)
        connection.request(stream: 3, fields: Self.request(token: "bb"), body: body)
        var sent = try server.read(&connection).filter { $0.header.knownType == .data }
        #expect(sent.reduce(0) { $0 + $1.header.length } == 65_535)  // the protocol's first connection window
        #expect(sent.last?.header.streamID == 3 && sent.last?.header.flags == 0)
        var update = ByteBuffer()
        FrameWriter.windowUpdate(stream: 0, increment: 100_000, into: &update)
        let frame = Self.frame(update)
        #expect(Self.isNothing(try connection.receive(frame.header, frame.payload)))
        sent = try server.read(&connection).filter { $0.header.knownType == .data }
        #expect(sent.reduce(0) { $0 + $1.header.length } == 80_000 - 65_535)
        #expect(sent.allSatisfy { $0.header.streamID == 3 } && sent.last?.header.flags == FrameHeader.Flag.endStream)
    }

    /// A stream's window smaller than its body holds the rest until that stream's WINDOW_UPDATE.
    @Test func aStreamsOwnWindowHoldsItsBody() throws {
        var (connection, server) = try Self.open([(0x4, 10)])
        connection.request(stream: 1, fields: Self.request(token: "aa"), body: ByteBuffer(string: "{\"aps\":{}} and more"))
        #expect(try server.read(&connection).filter { $0.header.knownType == .data }.map(\.header.length) == [10])
        var update = ByteBuffer()
        FrameWriter.windowUpdate(stream: 1, increment: 100, into: &update)
        let frame = Self.frame(update)
        _ = try connection.receive(frame.header, frame.payload)
        let rest = try server.read(&connection)
        #expect(rest.map(\.header.length) == [9] && rest[0].header.flags == FrameHeader.Flag.endStream)
    }

    /// A server that answers before the body is sent ends the stream: the rest is not sent, and RST_STREAM CANCEL says so.
    @Test func anAnswerBeforeTheWholeBodyCancelsTheRest() throws {
        var (connection, server) = try Self.open([(0x4, 10)])
        connection.request(stream: 1, fields: Self.request(token: "aa"), body: ByteBuffer(repeating: 1, count: 100))
        _ = try server.read(&connection)
        var answer = ByteBuffer()
        FrameWriter.frame(.headers, flags: FrameHeader.Flag.endHeaders | FrameHeader.Flag.endStream, stream: 1, into: &answer) {
            $0.writeInteger(UInt8(0x80 | 13))  // :status 404
        }
        let frame = Self.frame(answer)
        guard case .headers(1, let fields, true) = try connection.receive(frame.header, frame.payload) else {
            Issue.record("the answer was not passed up")
            return
        }
        #expect(fields.first?.value == "404")
        let after = try server.read(&connection)
        #expect(after.map(\.header.knownType) == [.resetStream])
        var update = ByteBuffer()
        FrameWriter.windowUpdate(stream: 1, increment: 1000, into: &update)
        let widen = Self.frame(update)
        _ = try connection.receive(widen.header, widen.payload)
        #expect(try server.read(&connection).isEmpty)
    }

    @Test func pingsAreAnsweredAndAcknowledgementsPassedUp() throws {
        var (connection, server) = try Self.open()
        var ping = ByteBuffer()
        FrameWriter.frame(.ping, stream: 0, into: &ping) { $0.writeInteger(UInt64(42)) }
        let frame = Self.frame(ping)
        #expect(Self.isNothing(try connection.receive(frame.header, frame.payload)))
        let answer = try server.read(&connection)
        #expect(answer.count == 1 && answer[0].header.flags == FrameHeader.Flag.ack)
        #expect(answer[0].payload.getInteger(at: answer[0].payload.readerIndex, as: UInt64.self) == 42)
        var acknowledgement = ByteBuffer()
        FrameWriter.pingAcknowledgement(7, into: &acknowledgement)
        let acknowledged = Self.frame(acknowledgement)
        guard case .pingAcknowledged(7) = try connection.receive(acknowledged.header, acknowledged.payload) else {
            Issue.record("the acknowledgement was not passed up")
            return
        }
    }

    @Test func goAwayCarriesItsLastStreamCodeAndDebugData() throws {
        var (connection, _) = try Self.open()
        var goAway = ByteBuffer()
        FrameWriter.goAway(lastStream: 5, code: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8), into: &goAway)
        let frame = Self.frame(goAway)
        guard case .goAway(5, 0, let debugData) = try connection.receive(frame.header, frame.payload) else {
            Issue.record("GOAWAY was not passed up")
            return
        }
        #expect(String(buffer: debugData) == #"{"reason":"Shutdown"}"#)
    }

    /// Answers' headers above the list size announced cancel their stream and leave the connection usable.
    @Test func answerHeadersAboveTheListSizeCancelTheStream() throws {
        var (connection, server) = try Self.open()
        var answer = ByteBuffer()
        FrameWriter.frame(.headers, flags: FrameHeader.Flag.endHeaders, stream: 1, into: &answer) { block in
            block.writeInteger(UInt8(0x80 | 8))  // :status 200
            block.writeInteger(UInt8(0x00))  // a literal, new name
            block.writeInteger(UInt8(1))
            block.writeString("x")
            block.writeBytes([0x7F, 0x81, 0x7F])  // a 16,384-byte value (127 + 0x81 + 0x7F << 7)
            block.writeBytes([UInt8](repeating: 0x61, count: 127 + 1 + (0x7F << 7)))
        }
        let frame = Self.frame(answer)
        guard case .headersTooLarge(1) = try connection.receive(frame.header, frame.payload) else {
            Issue.record("the oversized answer was not refused")
            return
        }
        #expect(try server.read(&connection).map(\.header.knownType) == [.resetStream])
    }

    /// What only a broken server sends ends the connection with the right code.
    @Test func protocolErrorsOfTheServerEndTheConnection() throws {
        var fresh = HTTP2ClientConnection()
        var ping = ByteBuffer()
        FrameWriter.frame(.ping, stream: 0, into: &ping) { $0.writeInteger(UInt64(1)) }
        let early = Self.frame(ping)
        #expect(throws: ConnectionFault(code: .protocolError, reason: "the server's first frame must be SETTINGS")) {
            try fresh.receive(early.header, early.payload)
        }
        var (connection, _) = try Self.open()
        var push = ByteBuffer()
        FrameWriter.frame(.pushPromise, flags: FrameHeader.Flag.endHeaders, stream: 1, into: &push) { $0.writeInteger(UInt32(2)) }
        let promise = Self.frame(push)
        #expect(throws: ConnectionFault.self) { try connection.receive(promise.header, promise.payload) }
        var window = ByteBuffer()
        FrameWriter.windowUpdate(stream: 0, increment: UInt32(Int32.max), into: &window)
        let overflow = Self.frame(window)
        #expect(throws: ConnectionFault(code: .flowControlError, reason: "the connection's window past 2^31 - 1")) {
            try connection.receive(overflow.header, overflow.payload)
        }
        var badIndex = ByteBuffer()
        FrameWriter.frame(.headers, flags: FrameHeader.Flag.endHeaders, stream: 1, into: &badIndex) {
            $0.writeInteger(UInt8(0xFF))
            $0.writeInteger(UInt8(0x7F))
        }
        let malformed = Self.frame(badIndex)
        #expect(throws: ConnectionFault.self) { try connection.receive(malformed.header, malformed.payload) }
    }

    /// The server lowers its table size and raises it again before the next request: the block announces the smallest,
    /// then the last (RFC 7541 §4.2), and the server's decoder, which shrank with it, reads every field.
    @Test func aTableSizeLoweredAndRaisedAgainIsAnnouncedBoth() throws {
        var (connection, server) = try Self.open()
        connection.request(stream: 1, fields: Self.request(token: "aa"), body: ByteBuffer())
        _ = try server.fields(of: try server.read(&connection)[0])
        for size: UInt32 in [0, 4096] {
            let settings = Self.settings([(0x1, size)])
            _ = try connection.receive(settings.header, settings.payload)
        }
        _ = try server.read(&connection)  // the acknowledgements
        connection.request(stream: 3, fields: Self.request(token: "bb"), body: ByteBuffer())
        let block = try server.read(&connection)[0]
        #expect(block.payload.getBytes(at: block.payload.readerIndex, length: 3) == [0x20, 0x3F, 0xE1])  // 0, then 4096
        #expect(try server.fields(of: block).map(\.value) == Self.request(token: "bb").map(\.value))
        // The table works again after: the third request sends its repeated fields as indexes.
        connection.request(stream: 5, fields: Self.request(token: "cc"), body: ByteBuffer())
        let third = try server.read(&connection)[0]
        #expect(try server.fields(of: third).map(\.value) == Self.request(token: "cc").map(\.value))
        #expect(third.header.length < 80)
    }

    /// Bodies of streams past a GOAWAY's last stream are not sent when the window opens: the server will not read them.
    @Test func aGoAwayDropsTheBodiesOfStreamsItWillNotProcess() throws {
        var (connection, server) = try Self.open([(0x4, 10)])
        connection.request(stream: 1, fields: Self.request(token: "aa"), body: ByteBuffer(repeating: 1, count: 100))
        connection.request(stream: 3, fields: Self.request(token: "bb"), body: ByteBuffer(repeating: 2, count: 100))
        _ = try server.read(&connection)
        var goAway = ByteBuffer()
        FrameWriter.goAway(lastStream: 1, code: .noError, into: &goAway)
        let frame = Self.frame(goAway)
        _ = try connection.receive(frame.header, frame.payload)
        for stream: UInt32 in [1, 3] {
            var update = ByteBuffer()
            FrameWriter.windowUpdate(stream: stream, increment: 1000, into: &update)
            let widen = Self.frame(update)
            _ = try connection.receive(widen.header, widen.payload)
        }
        let sent = try server.read(&connection).filter { $0.header.knownType == .data }
        #expect(sent.map(\.header.streamID) == [1] && sent.first?.header.length == 90)
    }
}
