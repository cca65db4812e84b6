package import NIOCore

/// HTTP/2's frame layer for Herald's own HTTP/2 (RFC 9113 §4), the provider port's and the provider client's: the nine-byte header, the frames a
/// connection reads, cut from the bytes as they arrive, and the frames it writes. Which frame may come when, streams
/// and flow control are the connection's business, not this file's.
package enum FrameType: UInt8, Sendable {
    case data = 0
    case headers = 1
    case priority = 2
    case resetStream = 3
    case settings = 4
    case pushPromise = 5
    case ping = 6
    case goAway = 7
    case windowUpdate = 8
    case continuation = 9
}

/// RFC 9113 §7's error codes, as RST_STREAM and GOAWAY carry them.
package enum FrameErrorCode: UInt32, Sendable {
    case noError = 0x0
    case protocolError = 0x1
    case internalError = 0x2
    case flowControlError = 0x3
    case settingsTimeout = 0x4
    case streamClosed = 0x5
    case frameSizeError = 0x6
    case refusedStream = 0x7
    case cancel = 0x8
    case compressionError = 0x9
    case connectError = 0xA
    case enhanceYourCalm = 0xB
    case inadequateSecurity = 0xC
    case http11Required = 0xD
}

/// A fault that ends the connection with GOAWAY and this code.
package struct ConnectionFault: Error, Equatable {
    package var code: FrameErrorCode
    package var reason: String
    /// What `herald_provider_connections_closed_total{reason}` calls it: the code, or the flood's name.
    package var label: String

    package init(code: FrameErrorCode, reason: String, label: String? = nil) {
        self.code = code
        self.reason = reason
        self.label = label ?? String(describing: code)
    }
}

package struct FrameHeader: Equatable, Sendable {
    package static let size = 9

    package var length: Int
    /// The raw type: a type this layer does not know is read and ignored (RFC 9113 §4.1), so it stays a number.
    package var type: UInt8
    package var flags: UInt8
    /// The stream, without the reserved bit.
    package var streamID: UInt32

    package init(length: Int, type: UInt8, flags: UInt8, streamID: UInt32) {
        self.length = length
        self.type = type
        self.flags = flags
        self.streamID = streamID
    }

    package var knownType: FrameType? { FrameType(rawValue: type) }

    package enum Flag {
        package static let endStream: UInt8 = 0x1
        package static let ack: UInt8 = 0x1
        package static let endHeaders: UInt8 = 0x4
        package static let padded: UInt8 = 0x8
        package static let priority: UInt8 = 0x20
    }
}

/// Cuts what a connection reads into frames: on a server, the client's connection preface first (RFC 9113 §3.4);
/// then frames no longer than the SETTINGS_MAX_FRAME_SIZE this end announced.
package struct FrameReader {
    package static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The largest payload accepted (SETTINGS_MAX_FRAME_SIZE as announced).
    package let maximumFrameSize: Int
    private var pending = ByteBuffer()
    private var prefaceRead: Bool

    /// - Parameter readsPreface: True on a server, which reads the client's preface before any frame.
    package init(maximumFrameSize: Int = 16_384, readsPreface: Bool = true) {
        self.maximumFrameSize = maximumFrameSize
        prefaceRead = !readsPreface
    }

    /// Takes bytes as they were read.
    package mutating func append(_ bytes: inout ByteBuffer) {
        if pending.readableBytes == 0 {
            pending = bytes  // the common case: nothing left over, no copy
        } else {
            pending.writeBuffer(&bytes)
        }
    }

    /// The next whole frame and its payload, or nil until more bytes arrive.
    ///
    /// - Throws: PROTOCOL_ERROR when the preface is wrong, FRAME_SIZE_ERROR for a frame above the maximum.
    package mutating func next() throws(ConnectionFault) -> (header: FrameHeader, payload: ByteBuffer)? {
        if !prefaceRead {
            let available = min(pending.readableBytes, Self.preface.count)
            guard pending.readableBytesView.prefix(available).elementsEqual(Self.preface.prefix(available)) else {
                throw ConnectionFault(code: .protocolError, reason: "the connection does not start with HTTP/2's preface")
            }
            guard available == Self.preface.count else { return nil }
            pending.moveReaderIndex(forwardBy: available)
            prefaceRead = true
        }
        guard pending.readableBytes >= FrameHeader.size,
            let lengthHigh = pending.getInteger(at: pending.readerIndex, as: UInt8.self),
            let lengthLow = pending.getInteger(at: pending.readerIndex + 1, as: UInt16.self),
            let type = pending.getInteger(at: pending.readerIndex + 3, as: UInt8.self),
            let flags = pending.getInteger(at: pending.readerIndex + 4, as: UInt8.self),
            let stream = pending.getInteger(at: pending.readerIndex + 5, as: UInt32.self)
        else { return nil }
        let length = Int(lengthHigh) << 16 | Int(lengthLow)
        guard length <= maximumFrameSize else {
            throw ConnectionFault(
                code: .frameSizeError, reason: "a frame of \(length) bytes, above the \(maximumFrameSize) announced")
        }
        guard pending.readableBytes >= FrameHeader.size + length else { return nil }
        pending.moveReaderIndex(forwardBy: FrameHeader.size)
        let payload = pending.readSlice(length: length)!
        let header = FrameHeader(length: length, type: type, flags: flags, streamID: stream & 0x7FFF_FFFF)
        return (header, payload)
    }

    /// A frame's payload without its padding (DATA, HEADERS and PUSH_PROMISE with PADDED set, RFC 9113 §6.1).
    package static func unpadded(_ payload: ByteBuffer, flags: UInt8) throws(ConnectionFault) -> ByteBuffer {
        guard flags & FrameHeader.Flag.padded != 0 else { return payload }
        var payload = payload
        guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
            throw ConnectionFault(code: .protocolError, reason: "padding longer than its frame")
        }
        return payload.readSlice(length: payload.readableBytes - Int(padding))!
    }
}

/// Writes frames into a connection's outgoing bytes.
package enum FrameWriter {
    package static func header(_ header: FrameHeader, into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(truncatingIfNeeded: header.length >> 16))
        buffer.writeInteger(UInt16(truncatingIfNeeded: header.length))
        buffer.writeInteger(header.type)
        buffer.writeInteger(header.flags)
        buffer.writeInteger(header.streamID & 0x7FFF_FFFF)
    }

    /// A frame with this payload, which is written by `body` after the header; the length is filled in afterwards.
    package static func frame(
        _ type: FrameType, flags: UInt8 = 0, stream: UInt32, into buffer: inout ByteBuffer, body: (inout ByteBuffer) -> Void
    ) {
        let start = buffer.writerIndex
        header(FrameHeader(length: 0, type: type.rawValue, flags: flags, streamID: stream), into: &buffer)
        body(&buffer)
        setLength(ofFrameAt: start, in: &buffer)
    }

    /// Fills in the length of the frame whose header starts at `start`: everything written after that header.
    package static func setLength(ofFrameAt start: Int, in buffer: inout ByteBuffer) {
        let length = buffer.writerIndex - start - FrameHeader.size
        buffer.setInteger(UInt8(truncatingIfNeeded: length >> 16), at: start)
        buffer.setInteger(UInt16(truncatingIfNeeded: length), at: start + 1)
    }

    package static func settings(_ settings: [(identifier: UInt16, value: UInt32)], into buffer: inout ByteBuffer) {
        frame(.settings, stream: 0, into: &buffer) { buffer in
            for (identifier, value) in settings {
                buffer.writeInteger(identifier)
                buffer.writeInteger(value)
            }
        }
    }

    package static func settingsAcknowledgement(into buffer: inout ByteBuffer) {
        header(FrameHeader(length: 0, type: FrameType.settings.rawValue, flags: FrameHeader.Flag.ack, streamID: 0), into: &buffer)
    }

    package static func pingAcknowledgement(_ opaque: UInt64, into buffer: inout ByteBuffer) {
        frame(.ping, flags: FrameHeader.Flag.ack, stream: 0, into: &buffer) { $0.writeInteger(opaque) }
    }

    package static func goAway(lastStream: UInt32, code: FrameErrorCode, debugData: [UInt8] = [], into buffer: inout ByteBuffer) {
        frame(.goAway, stream: 0, into: &buffer) { buffer in
            buffer.writeInteger(lastStream & 0x7FFF_FFFF)
            buffer.writeInteger(code.rawValue)
            buffer.writeBytes(debugData)
        }
    }

    package static func resetStream(_ stream: UInt32, code: FrameErrorCode, into buffer: inout ByteBuffer) {
        frame(.resetStream, stream: stream, into: &buffer) { $0.writeInteger(code.rawValue) }
    }

    package static func windowUpdate(stream: UInt32, increment: UInt32, into buffer: inout ByteBuffer) {
        frame(.windowUpdate, stream: stream, into: &buffer) { $0.writeInteger(increment & 0x7FFF_FFFF) }
    }

    package static func data(stream: UInt32, _ bytes: ByteBuffer, endStream: Bool, into buffer: inout ByteBuffer) {
        var bytes = bytes
        frame(.data, flags: endStream ? FrameHeader.Flag.endStream : 0, stream: stream, into: &buffer) { $0.writeBuffer(&bytes) }
    }
}
