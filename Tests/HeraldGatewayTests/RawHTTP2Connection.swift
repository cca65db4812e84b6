import Foundation
import NIOCore

/// A TCP connection that writes HTTP/2 frames byte by byte, so tests can send what no well-behaved
/// client library would: oversized frames, header floods, HPACK bombs, reset storms.
final class RawHTTP2Connection: Sendable {
    private let connection: RawTCPConnection

    private init(connection: RawTCPConnection) {
        self.connection = connection
    }

    /// Connects with h2c prior knowledge and sends the preface and an empty SETTINGS frame.
    static func connect(port: Int) async throws -> RawHTTP2Connection {
        let connection = RawHTTP2Connection(connection: try await RawTCPConnection.connect(port: port))
        try await connection.write(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(type: 0x4, flags: 0, stream: 0, payload: []))
        return connection
    }

    func write(_ bytes: [UInt8]) async throws {
        try await connection.write(bytes)
    }

    /// Everything the server sent until it closed the connection, or nil if it is still open after `timeout`
    /// (the connection is then closed).
    func bytesUntilClosed(timeout: Duration = .seconds(20)) async throws -> ByteBuffer? {
        let bytes = try await connection.bytesUntilClosed(timeout: timeout)
        if bytes == nil { await connection.close() }
        return bytes
    }

    /// The bytes received once `condition` holds for them, or after `timeout` whatever arrived.
    func bytes(until condition: @escaping @Sendable (ByteBuffer) -> Bool, timeout: Duration = .seconds(20)) async throws -> ByteBuffer {
        try await connection.bytes(until: condition, timeout: timeout)
    }

    /// The HEADERS frames in `bytes`: stream id and the first byte of the header block.
    static func headersFrames(in bytes: ByteBuffer) -> [(stream: UInt32, firstByte: UInt8)] {
        var buffer = bytes
        var found: [(UInt32, UInt8)] = []
        while buffer.readableBytes >= 9 {
            let length = Int(buffer.getInteger(at: buffer.readerIndex, as: UInt32.self)! >> 8)
            let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self)!
            let stream = buffer.getInteger(at: buffer.readerIndex + 5, as: UInt32.self)! & 0x7FFF_FFFF
            guard buffer.readableBytes >= 9 + length else { break }
            if type == 0x1, length > 0 {
                found.append((stream, buffer.getInteger(at: buffer.readerIndex + 9, as: UInt8.self)!))
            }
            buffer.moveReaderIndex(forwardBy: 9 + length)
        }
        return found
    }

    /// The header block of each HEADERS frame in `bytes` (frames without padding or priority, as the gateway sends).
    static func headerBlocks(in bytes: ByteBuffer) -> [[UInt8]] {
        var buffer = bytes
        var blocks: [[UInt8]] = []
        while buffer.readableBytes >= 9 {
            let length = Int(buffer.getInteger(at: buffer.readerIndex, as: UInt32.self)! >> 8)
            let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self)!
            guard buffer.readableBytes >= 9 + length else { break }
            if type == 0x1 { blocks.append(buffer.getBytes(at: buffer.readerIndex + 9, length: length)!) }
            buffer.moveReaderIndex(forwardBy: 9 + length)
        }
        return blocks
    }

    /// Every complete frame in `bytes`: its type and stream, in order.
    static func frames(in bytes: ByteBuffer) -> [(type: UInt8, stream: UInt32)] {
        var buffer = bytes
        var frames: [(UInt8, UInt32)] = []
        while buffer.readableBytes >= 9 {
            let length = Int(buffer.getInteger(at: buffer.readerIndex, as: UInt32.self)! >> 8)
            guard buffer.readableBytes >= 9 + length else { break }
            let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self)!
            let stream = buffer.getInteger(at: buffer.readerIndex + 5, as: UInt32.self)! & 0x7FFF_FFFF
            frames.append((type, stream))
            buffer.moveReaderIndex(forwardBy: 9 + length)
        }
        return frames
    }

    /// The error code of the first GOAWAY in `bytes`, if any.
    static func goAwayErrorCode(in bytes: ByteBuffer) -> UInt32? {
        var buffer = bytes
        while buffer.readableBytes >= 9 {
            let length = Int(buffer.getInteger(at: buffer.readerIndex, as: UInt32.self)! >> 8)
            let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self)!
            guard buffer.readableBytes >= 9 + length else { return nil }
            if type == 0x7, length >= 8 {
                return buffer.getInteger(at: buffer.readerIndex + 13, as: UInt32.self)
            }
            buffer.moveReaderIndex(forwardBy: 9 + length)
        }
        return nil
    }

    /// The error code of each RST_STREAM in `bytes`, by stream.
    static func resetCodes(in bytes: ByteBuffer) -> [UInt32: UInt32] {
        var buffer = bytes
        var codes: [UInt32: UInt32] = [:]
        while buffer.readableBytes >= 9 {
            let length = Int(buffer.getInteger(at: buffer.readerIndex, as: UInt32.self)! >> 8)
            let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self)!
            let stream = buffer.getInteger(at: buffer.readerIndex + 5, as: UInt32.self)! & 0x7FFF_FFFF
            guard buffer.readableBytes >= 9 + length else { break }
            if type == 0x3, length == 4 {
                codes[stream] = buffer.getInteger(at: buffer.readerIndex + 9, as: UInt32.self)
            }
            buffer.moveReaderIndex(forwardBy: 9 + length)
        }
        return codes
    }

    static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        return [
            UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
            UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF),
        ] + payload
    }

    /// An HPACK integer with an `prefixBits`-bit prefix, OR-ed into `firstByte`.
    static func hpackInteger(_ value: Int, prefixBits: Int, firstByte: UInt8) -> [UInt8] {
        let limit = (1 << prefixBits) - 1
        if value < limit { return [firstByte | UInt8(value)] }
        var bytes = [firstByte | UInt8(limit)]
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// A literal header field; with `index` it is added to the dynamic table.
    static func literal(_ name: String, _ value: String, index: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [index ? 0x40 : 0x00]
        bytes += hpackInteger(name.utf8.count, prefixBits: 7, firstByte: 0) + Array(name.utf8)
        bytes += hpackInteger(value.utf8.count, prefixBits: 7, firstByte: 0) + Array(value.utf8)
        return bytes
    }

    /// A valid request header block for `POST path` (no authorization).
    static func requestHeaders(path: String) -> [UInt8] {
        // :method POST (static 3), :scheme http (static 6), :path literal, :authority literal.
        [0x83, 0x86] + literal(":path", path) + literal(":authority", "localhost")
    }
}
