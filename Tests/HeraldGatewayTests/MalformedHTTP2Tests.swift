import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldTesting
import NIOCore
import Testing

/// Hostile HTTP/2 is bounded by limits: the offending connection closes, the gateway keeps serving.
@Suite struct MalformedHTTP2Tests {
    typealias Raw = RawHTTP2Connection

    /// Runs `attack` on a raw connection, expects the gateway to close it with a GOAWAY, then checks
    /// a well-behaved client still gets its notification through.
    private func expectConnectionClosed(_ attack: @Sendable (Raw, String) async throws -> Void) async throws -> UInt32? {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let token = try await gateway.issueToken()
        let raw = try await Raw.connect(port: gateway.gateway.providerPort)
        try await attack(raw, token)
        let bytes = try await raw.bytesUntilClosed()
        let received = try #require(bytes, "the gateway kept the hostile connection open")
        let code = Raw.goAwayErrorCode(in: received)
        let healthy = try await APNsConnection.connect(to: gateway.url)
        #expect(try await healthy.send(try await gateway.push()).status == 200)
        try await gateway.stop()
        return code
    }

    @Test func oversizedFrameIsAFrameSizeError() async throws {
        let code = try await expectConnectionClosed { raw, token in
            try await raw.write(Raw.frame(type: 0x1, flags: 0x4, stream: 1, payload: Raw.requestHeaders(path: "/3/device/\(token)")))
            try await raw.write(Raw.frame(type: 0x0, flags: 0x1, stream: 1, payload: [UInt8](repeating: 0x7B, count: 20_000)))
        }
        #expect(code == 0x6)  // FRAME_SIZE_ERROR
    }

    @Test func headerListLargerThanTheLimitIsRefused() async throws {
        let code = try await expectConnectionClosed { raw, token in
            let block =
                Raw.requestHeaders(path: "/3/device/\(token)") + Raw.literal("x-flood", String(repeating: "a", count: 15_000))
                + Raw.literal("x-flood-2", String(repeating: "b", count: 15_000))
            // HEADERS without END_HEADERS, then CONTINUATION frames of at most 16 KiB.
            try await raw.write(Raw.frame(type: 0x1, flags: 0x0, stream: 1, payload: Array(block[..<16_000])))
            try await raw.write(Raw.frame(type: 0x9, flags: 0x4, stream: 1, payload: Array(block[16_000...])))
        }
        #expect(code != nil)
    }

    @Test func hpackBombIsRefused() async throws {
        let code = try await expectConnectionClosed { raw, token in
            // One 4000-byte entry in the dynamic table, then referenced 200 times: 800 KB decoded from 4 KB sent.
            var block = Raw.requestHeaders(path: "/3/device/\(token)") + Raw.literal("x-bomb", String(repeating: "z", count: 4000), index: true)
            block += [UInt8](repeating: 0xBE, count: 200)  // indexed field 62: the newest dynamic entry
            try await raw.write(Raw.frame(type: 0x1, flags: 0x5, stream: 1, payload: block))
        }
        #expect(code != nil)
    }

    @Test func continuationFloodIsCut() async throws {
        let code = try await expectConnectionClosed { raw, token in
            try await raw.write(Raw.frame(type: 0x1, flags: 0x0, stream: 1, payload: Raw.requestHeaders(path: "/3/device/\(token)")))
            var flood: [UInt8] = []
            for _ in 0..<2000 { flood += Raw.frame(type: 0x9, flags: 0x0, stream: 1, payload: []) }
            try await raw.write(flood)
        }
        #expect(code != nil)
    }

    @Test func rapidResetsAreCut() async throws {
        let code = try await expectConnectionClosed { raw, token in
            var storm: [UInt8] = []
            for index in 0..<1000 {
                let stream = UInt32(2 * index + 1)
                storm += Raw.frame(type: 0x1, flags: 0x4, stream: stream, payload: Raw.requestHeaders(path: "/3/device/\(token)"))
                storm += Raw.frame(type: 0x3, flags: 0x0, stream: stream, payload: [0, 0, 0, 0x8])  // RST_STREAM CANCEL
            }
            try await raw.write(storm)
        }
        #expect(code == 0xB)  // ENHANCE_YOUR_CALM
    }

    @Test func garbageInsteadOfHTTP2ClosesTheConnection() async throws {
        _ = try await expectConnectionClosed { raw, _ in
            try await raw.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + [UInt8](repeating: 0xFF, count: 100))
        }
    }

    /// Each request whose header block breaks RFC 9113 (§8.1–8.3) is reset with PROTOCOL_ERROR on its own
    /// stream; a good request on the same connection still gets its 200.
    @Test func malformedHeaderBlocksResetTheirStreams() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let path = "/3/device/\(try await gateway.issueToken())"
        let post: [UInt8] = [0x83, 0x86]  // :method POST, :scheme http
        let malformed: [String: [UInt8]] = [
            "uppercase name": Raw.requestHeaders(path: path) + Raw.literal("Apns-Topic", TestGateway.topic),
            "no :scheme": [0x83] + Raw.literal(":path", path),
            "no :path": post + Raw.literal(":authority", "localhost"),
            "empty :path": post + Raw.literal(":path", ""),
            "space in :path": post + Raw.literal(":path", path + " x"),
            "duplicate :path": post + Raw.literal(":path", path) + Raw.literal(":path", path),
            "pseudo-header after a field": post + Raw.literal("x-a", "1") + Raw.literal(":path", path),
            "response pseudo-header": post + Raw.literal(":path", path) + Raw.literal(":status", "200"),
            "connection field": Raw.requestHeaders(path: path) + Raw.literal("connection", "keep-alive"),
            "transfer-encoding field": Raw.requestHeaders(path: path) + Raw.literal("transfer-encoding", "chunked"),
            "proxy-connection field": Raw.requestHeaders(path: path) + Raw.literal("proxy-connection", "close"),
            "keep-alive field": Raw.requestHeaders(path: path) + Raw.literal("keep-alive", "timeout=5"),
            "upgrade field": Raw.requestHeaders(path: path) + Raw.literal("upgrade", "h2c"),
            "content-length with no body": Raw.requestHeaders(path: path) + Raw.literal("content-length", "5"),
            "content-length not a number": Raw.requestHeaders(path: path) + Raw.literal("content-length", "5x"),
            "te other than trailers": Raw.requestHeaders(path: path) + Raw.literal("te", "gzip"),
            "CR in a value": Raw.requestHeaders(path: path) + Raw.literal("x-a", "a\rb"),
            "NUL in a value": Raw.requestHeaders(path: path) + Raw.literal("x-a", "a\u{0}b"),
            // Long values are checked many bytes at a time: a forbidden byte in the middle of one.
            "LF inside a long value": Raw.requestHeaders(path: path)
                + Raw.literal("x-a", String(repeating: "a", count: 100) + "\n" + String(repeating: "b", count: 150)),
            "DEL inside a long :path": post + Raw.literal(":path", path + "\u{7F}" + String(repeating: "c", count: 100)),
        ]
        let raw = try await Raw.connect(port: gateway.gateway.providerPort)
        var streams: [UInt32: String] = [:]
        for (index, (name, block)) in malformed.sorted(by: { $0.key < $1.key }).enumerated() {
            let stream = UInt32(2 * index + 1)
            streams[stream] = name
            try await raw.write(Raw.frame(type: 0x1, flags: 0x5, stream: stream, payload: block))
        }
        // Trailers carrying a pseudo-header, after a well-formed start.
        let trailersStream = UInt32(2 * malformed.count + 1)
        streams[trailersStream] = "pseudo-header in trailers"
        try await raw.write(Raw.frame(type: 0x1, flags: 0x4, stream: trailersStream, payload: Raw.requestHeaders(path: path)))
        try await raw.write(Raw.frame(type: 0x0, flags: 0x0, stream: trailersStream, payload: Array(#"{"aps":{}}"#.utf8)))
        try await raw.write(Raw.frame(type: 0x1, flags: 0x5, stream: trailersStream, payload: Raw.literal(":path", path)))
        let good = trailersStream + 2
        try await raw.write(
            Raw.frame(
                type: 0x1, flags: 0x4, stream: good,
                payload: Raw.requestHeaders(path: path)
                    + Raw.literal("authorization", "bearer \(gateway.defaultJWT)") + Raw.literal("apns-topic", TestGateway.topic)
                    + Raw.literal("content-length", "24")))
        try await raw.write(Raw.frame(type: 0x0, flags: 0x1, stream: good, payload: Array(#"{"aps":{"alert":"fine"}}"#.utf8)))

        let bytes = try await raw.bytes(until: { Raw.headersFrames(in: $0).contains { $0.stream == good } })
        let resets = Raw.resetCodes(in: bytes)
        for (stream, name) in streams.sorted(by: { $0.key < $1.key }) {
            #expect(resets[stream] == 0x1, "\(name): expected RST_STREAM PROTOCOL_ERROR, got \(resets[stream].map(String.init) ?? "none")")
        }
        #expect(Raw.headersFrames(in: bytes).contains { $0.stream == good && $0.firstByte == 0x88 })  // :status 200
        #expect(Raw.goAwayErrorCode(in: bytes) == nil)
        try await gateway.stop()
    }

    /// A broken stream is reset on its own; the connection and its other requests carry on.
    @Test func aStreamErrorDoesNotCostTheConnection() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let token = try await gateway.issueToken()
        let raw = try await Raw.connect(port: gateway.gateway.providerPort)
        let path = "/3/device/\(token)"
        // Stream 1 announces 5 bytes and sends 30: a content-length violation, a stream error.
        try await raw.write(Raw.frame(type: 0x1, flags: 0x4, stream: 1, payload: Raw.requestHeaders(path: path) + Raw.literal("content-length", "5")))
        try await raw.write(Raw.frame(type: 0x0, flags: 0x1, stream: 1, payload: Array(#"{"aps":{"alert":"one two"}}   "#.utf8)))
        // Stream 3 is a good request on the same connection.
        let good =
            Raw.requestHeaders(path: path) + Raw.literal("authorization", "bearer \(gateway.defaultJWT)")
            + Raw.literal("apns-topic", TestGateway.topic)
        try await raw.write(Raw.frame(type: 0x1, flags: 0x4, stream: 3, payload: good))
        try await raw.write(Raw.frame(type: 0x0, flags: 0x1, stream: 3, payload: Array(#"{"aps":{"alert":"fine"}}"#.utf8)))
        // HPACK 0x88 is ":status: 200" from the static table.
        let bytes = try await raw.bytes(until: { Raw.headersFrames(in: $0).contains { $0.stream == 3 } })
        #expect(Raw.goAwayErrorCode(in: bytes) == nil)
        #expect(Raw.headersFrames(in: bytes).contains { $0.stream == 3 && $0.firstByte == 0x88 })
        try await gateway.stop()
    }
}
