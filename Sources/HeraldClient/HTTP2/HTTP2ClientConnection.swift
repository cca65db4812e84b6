import HeraldHTTP2
import NIOCore

/// RFC 9113's rules for the client side of one connection, as plain values (no channel, no clock): it writes the
/// preface and requests into ``output``, is handed each frame the server sent, says what it means for the requests
/// (an answer's headers and body, a reset, a GOAWAY, the server's stream limit) and writes what the rules answer
/// (SETTINGS and PING acknowledgements, window updates) into ``output``.
///
/// Which requests may start, their stream ids, deadlines and answers are ``APNsStreamHandler``'s business. This
/// keeps only what the protocol needs: the HPACK tables, the flow-control windows, and the bodies waiting for them.
/// Streams are not tracked otherwise: a frame for a stream the handler no longer waits on (one it cancelled) is
/// passed up and dropped there.
///
/// The provider client's own HTTP/2 layer (issue 40), like the provider port's ``HTTP2ServerConnection``.
struct HTTP2ClientConnection {
    enum Event {
        /// The server's SETTINGS, with the SETTINGS_MAX_CONCURRENT_STREAMS it named (nil: none); `first` for the
        /// first of them, the server's preface.
        case settings(maximumConcurrentStreams: Int?, first: Bool)
        /// An answer's header block (its 1xx headers, its answer or its trailers).
        case headers(stream: UInt32, fields: [(name: String, value: String)], endStream: Bool)
        case data(stream: UInt32, bytes: ByteBuffer, endStream: Bool)
        /// The server reset the stream with this code (raw, as RST_STREAM carried it).
        case reset(stream: UInt32, code: UInt32)
        /// An answer's header block larger than the list size announced: the stream was cancelled.
        case headersTooLarge(stream: UInt32)
        case pingAcknowledged(opaque: UInt64)
        case goAway(lastStream: UInt32, code: UInt32, debugData: ByteBuffer)
    }

    /// What this end announces in its SETTINGS.
    static let maximumHeaderListSize = 16_384
    /// Each stream's receive window (SETTINGS_INITIAL_WINDOW_SIZE); answers are a few hundred bytes.
    static let streamWindow = 1 << 20
    /// The connection's receive window, opened with a WINDOW_UPDATE after the preface.
    static let connectionWindow = 1 << 20
    private static let maximumWindow = Int(Int32.max)

    /// What the connection has to send, in order; the caller writes it out and clears it.
    var output = ByteBuffer()
    private var encoder = RequestHeaderEncoder()
    private var decoder = HeaderBlockDecoder(maximumTableSize: 4096, maximumListSize: maximumHeaderListSize)
    /// A header block being gathered from HEADERS and CONTINUATION frames.
    private var pendingBlock: (stream: UInt32, endStream: Bool, fragment: ByteBuffer)?
    private var receivedSettings = false
    private var peerInitialWindow = 65_535
    private var peerMaximumFrameSize = 16_384
    private var connectionSendWindow = 65_535
    private var connectionReceiveWindow = connectionWindow
    /// Request bodies (or their rest) waiting for the server's windows, by stream, in the order they were sent.
    private var heldBodies: [(stream: UInt32, window: Int, body: ByteBuffer)] = []

    init() {
        output.writeBytes(FrameReader.preface)
        FrameWriter.settings(
            [(0x2, 0), (0x3, 100), (0x4, UInt32(Self.streamWindow)), (0x6, UInt32(Self.maximumHeaderListSize))], into: &output)
        FrameWriter.windowUpdate(stream: 0, increment: UInt32(Self.connectionWindow - 65_535), into: &output)
    }

    // MARK: Frames out

    /// Writes a request: its HEADERS (and CONTINUATIONs past the server's frame size), then its body as DATA as far
    /// as the server's windows allow (the rest when they open).
    mutating func request(stream: UInt32, fields: [(name: String, value: String)], body: ByteBuffer) {
        let hasBody = body.readableBytes > 0
        let endStream = hasBody ? 0 : FrameHeader.Flag.endStream
        let start = output.writerIndex
        let header = FrameHeader(length: 0, type: FrameType.headers.rawValue, flags: endStream | FrameHeader.Flag.endHeaders, streamID: stream)
        FrameWriter.header(header, into: &output)
        encoder.encode(fields, into: &output)
        FrameWriter.setLength(ofFrameAt: start, in: &output)
        if output.writerIndex - start - FrameHeader.size > peerMaximumFrameSize {
            splitHeaderBlock(ofFrameAt: start, stream: stream, endStream: endStream)
        }
        guard hasBody else { return }
        heldBodies.append((stream, peerInitialWindow, body))
        sendHeldBodies()
    }

    /// Cuts a header block written as one HEADERS frame into a HEADERS and CONTINUATIONs no longer than the server's
    /// SETTINGS_MAX_FRAME_SIZE (RFC 9113 §6.10).
    private mutating func splitHeaderBlock(ofFrameAt start: Int, stream: UInt32, endStream: UInt8) {
        var block = output.getSlice(at: start + FrameHeader.size, length: output.writerIndex - start - FrameHeader.size)!
        output.moveWriterIndex(to: start)
        var (type, flags) = (FrameType.headers, endStream)
        repeat {
            var fragment = block.readSlice(length: min(block.readableBytes, peerMaximumFrameSize))!
            if block.readableBytes == 0 { flags |= FrameHeader.Flag.endHeaders }
            FrameWriter.frame(type, flags: flags, stream: stream, into: &output) { $0.writeBuffer(&fragment) }
            (type, flags) = (.continuation, 0)
        } while block.readableBytes > 0
    }

    /// Ends a stream the client no longer waits on (its deadline passed) with RST_STREAM CANCEL.
    mutating func cancel(stream: UInt32) {
        heldBodies.removeAll { $0.stream == stream }
        FrameWriter.resetStream(stream, code: .cancel, into: &output)
    }

    mutating func ping(opaque: UInt64) {
        FrameWriter.frame(.ping, stream: 0, into: &output) { $0.writeInteger(opaque) }
    }

    /// Tells the server the client will open no more streams (a clean shutdown, NO_ERROR).
    mutating func goAway() {
        FrameWriter.goAway(lastStream: 0, code: .noError, into: &output)
    }

    private mutating func sendHeldBodies() {
        var index = 0
        while index < heldBodies.count, connectionSendWindow > 0 {
            var held = heldBodies[index]
            while held.body.readableBytes > 0 {
                let size = min(held.body.readableBytes, held.window, connectionSendWindow, peerMaximumFrameSize)
                guard size > 0 else { break }
                let chunk = held.body.readSlice(length: size)!
                held.window -= size
                connectionSendWindow -= size
                FrameWriter.data(stream: held.stream, chunk, endStream: held.body.readableBytes == 0, into: &output)
            }
            if held.body.readableBytes == 0 {
                heldBodies.remove(at: index)
            } else {
                heldBodies[index] = held
                index += 1
            }
        }
    }

    // MARK: Frames in

    /// What the frame means for the requests; nil when nothing (a SETTINGS acknowledgement, a WINDOW_UPDATE…).
    ///
    /// - Throws: a ``ConnectionFault`` when the server broke the protocol: send GOAWAY with its code and close.
    mutating func receive(_ header: FrameHeader, _ payload: ByteBuffer) throws(ConnectionFault) -> Event? {
        if let pending = pendingBlock, header.knownType != .continuation || header.streamID != pending.stream {
            throw ConnectionFault(code: .protocolError, reason: "a header block interrupted by another frame")
        }
        guard receivedSettings || header.knownType == .settings && header.flags & FrameHeader.Flag.ack == 0 else {
            throw ConnectionFault(code: .protocolError, reason: "the server's first frame must be SETTINGS")
        }
        switch header.knownType {
        case .settings:
            guard header.streamID == 0 else { throw ConnectionFault(code: .protocolError, reason: "SETTINGS on a stream") }
            guard header.flags & FrameHeader.Flag.ack == 0 else { return nil }
            return try receiveSettings(header, payload)
        case .ping:
            guard header.streamID == 0 else { throw ConnectionFault(code: .protocolError, reason: "PING on a stream") }
            guard header.length == 8, let opaque = payload.getInteger(at: payload.readerIndex, as: UInt64.self) else {
                throw ConnectionFault(code: .frameSizeError, reason: "PING of \(header.length) bytes")
            }
            if header.flags & FrameHeader.Flag.ack != 0 { return .pingAcknowledged(opaque: opaque) }
            FrameWriter.pingAcknowledgement(opaque, into: &output)
        case .headers:
            guard header.streamID != 0 else { throw ConnectionFault(code: .protocolError, reason: "HEADERS on stream 0") }
            var fragment = try FrameReader.unpadded(payload, flags: header.flags)
            if header.flags & FrameHeader.Flag.priority != 0 {
                guard fragment.readSlice(length: 5) != nil else {
                    throw ConnectionFault(code: .frameSizeError, reason: "HEADERS too short for its priority")
                }
            }
            pendingBlock = (header.streamID, header.flags & FrameHeader.Flag.endStream != 0, fragment)
            if header.flags & FrameHeader.Flag.endHeaders != 0 { return try finishBlock() }
        case .continuation:
            guard var pending = pendingBlock else {
                throw ConnectionFault(code: .protocolError, reason: "CONTINUATION without a header block")
            }
            var more = payload
            pending.fragment.writeBuffer(&more)
            guard pending.fragment.readableBytes <= Self.maximumHeaderListSize * 2 else {
                throw ConnectionFault(code: .enhanceYourCalm, reason: "a header block of more than \(Self.maximumHeaderListSize * 2) bytes")
            }
            pendingBlock = pending
            if header.flags & FrameHeader.Flag.endHeaders != 0 { return try finishBlock() }
        case .data:
            guard header.streamID != 0 else { throw ConnectionFault(code: .protocolError, reason: "DATA on stream 0") }
            // Padding counts against the window too (RFC 9113 §6.9.1).
            connectionReceiveWindow -= header.length
            guard connectionReceiveWindow >= 0 else { throw ConnectionFault(code: .flowControlError, reason: "DATA past the connection's window") }
            if connectionReceiveWindow <= Self.connectionWindow / 2 {
                FrameWriter.windowUpdate(stream: 0, increment: UInt32(Self.connectionWindow - connectionReceiveWindow), into: &output)
                connectionReceiveWindow = Self.connectionWindow
            }
            let endStream = header.flags & FrameHeader.Flag.endStream != 0
            if endStream { answered(header.streamID) }
            return .data(stream: header.streamID, bytes: try FrameReader.unpadded(payload, flags: header.flags), endStream: endStream)
        case .resetStream:
            guard header.streamID != 0 else { throw ConnectionFault(code: .protocolError, reason: "RST_STREAM on stream 0") }
            guard header.length == 4, let code = payload.getInteger(at: payload.readerIndex, as: UInt32.self) else {
                throw ConnectionFault(code: .frameSizeError, reason: "RST_STREAM of \(header.length) bytes")
            }
            heldBodies.removeAll { $0.stream == header.streamID }
            return .reset(stream: header.streamID, code: code)
        case .windowUpdate:
            return try receiveWindowUpdate(header, payload)
        case .goAway:
            guard header.streamID == 0 else { throw ConnectionFault(code: .protocolError, reason: "GOAWAY on a stream") }
            guard header.length >= 8, let last = payload.getInteger(at: payload.readerIndex, as: UInt32.self),
                let code = payload.getInteger(at: payload.readerIndex + 4, as: UInt32.self)
            else { throw ConnectionFault(code: .frameSizeError, reason: "GOAWAY of \(header.length) bytes") }
            heldBodies.removeAll { $0.stream > last & 0x7FFF_FFFF }  // the server will not process those streams
            return .goAway(
                lastStream: last & 0x7FFF_FFFF, code: code, debugData: payload.getSlice(at: payload.readerIndex + 8, length: header.length - 8)!)
        case .pushPromise:
            throw ConnectionFault(code: .protocolError, reason: "PUSH_PROMISE, which the client's SETTINGS_ENABLE_PUSH of 0 forbids")
        case .priority, nil:
            break  // priorities mean nothing to a client; unknown types are ignored (RFC 9113 §4.1)
        }
        return nil
    }

    private mutating func receiveSettings(_ header: FrameHeader, _ payload: ByteBuffer) throws(ConnectionFault) -> Event {
        guard header.length % 6 == 0 else { throw ConnectionFault(code: .frameSizeError, reason: "SETTINGS of \(header.length) bytes") }
        var payload = payload
        var maximumConcurrentStreams: Int?
        while let identifier = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            switch identifier {
            case 0x1:
                encoder.serverAnnouncedTableSize(Int(value))
            case 0x2:
                // A server may only say 0 (RFC 9113 §6.5.2).
                guard value == 0 else { throw ConnectionFault(code: .protocolError, reason: "SETTINGS_ENABLE_PUSH of \(value) from a server") }
            case 0x3:
                maximumConcurrentStreams = Int(value)
            case 0x4:
                guard value <= UInt32(Self.maximumWindow) else {
                    throw ConnectionFault(code: .flowControlError, reason: "SETTINGS_INITIAL_WINDOW_SIZE of \(value)")
                }
                let change = Int(value) - peerInitialWindow
                for index in heldBodies.indices {
                    heldBodies[index].window += change
                    guard heldBodies[index].window <= Self.maximumWindow else {
                        throw ConnectionFault(code: .flowControlError, reason: "a stream's window past 2^31 - 1")
                    }
                }
                peerInitialWindow = Int(value)
            case 0x5:
                guard (16_384...16_777_215).contains(value) else {
                    throw ConnectionFault(code: .protocolError, reason: "SETTINGS_MAX_FRAME_SIZE of \(value)")
                }
                peerMaximumFrameSize = Int(value)
            default:
                break  // the server's header list size is advisory; unknown settings are ignored
            }
        }
        let first = !receivedSettings
        receivedSettings = true
        FrameWriter.settingsAcknowledgement(into: &output)
        sendHeldBodies()
        return .settings(maximumConcurrentStreams: maximumConcurrentStreams, first: first)
    }

    private mutating func receiveWindowUpdate(_ header: FrameHeader, _ payload: ByteBuffer) throws(ConnectionFault) -> Event? {
        guard header.length == 4, let raw = payload.getInteger(at: payload.readerIndex, as: UInt32.self) else {
            throw ConnectionFault(code: .frameSizeError, reason: "WINDOW_UPDATE of \(header.length) bytes")
        }
        let increment = Int(raw & 0x7FFF_FFFF)
        if header.streamID == 0 {
            guard increment > 0 else { throw ConnectionFault(code: .protocolError, reason: "a WINDOW_UPDATE of 0 for the connection") }
            connectionSendWindow += increment
            guard connectionSendWindow <= Self.maximumWindow else {
                throw ConnectionFault(code: .flowControlError, reason: "the connection's window past 2^31 - 1")
            }
        } else if increment == 0 {
            return resetStream(header.streamID, .protocolError)  // a stream error (RFC 9113 §6.9)
        } else if let index = heldBodies.firstIndex(where: { $0.stream == header.streamID }) {
            heldBodies[index].window += increment
            guard heldBodies[index].window <= Self.maximumWindow else { return resetStream(header.streamID, .flowControlError) }
        }
        sendHeldBodies()
        return nil
    }

    /// Ends a stream the server broke a rule on: RST_STREAM with `code`, and the request fails as reset.
    private mutating func resetStream(_ stream: UInt32, _ code: FrameErrorCode) -> Event {
        heldBodies.removeAll { $0.stream == stream }
        FrameWriter.resetStream(stream, code: code, into: &output)
        return .reset(stream: stream, code: code.rawValue)
    }

    /// Decodes a complete header block.
    private mutating func finishBlock() throws(ConnectionFault) -> Event? {
        guard let pending = pendingBlock else { return nil }
        pendingBlock = nil
        let fields: [(name: String, value: String)]
        do {
            fields = try pending.fragment.withUnsafeReadableBytes { (bytes) throws(HeaderBlockDecoder.Failure) in try decoder.decode(bytes) }
        } catch .malformed(let reason) {
            throw ConnectionFault(code: .compressionError, reason: reason)
        } catch {
            if !pending.endStream { cancel(stream: pending.stream) }  // an ended stream needs no RST_STREAM
            return .headersTooLarge(stream: pending.stream)
        }
        if pending.endStream { answered(pending.stream) }
        return .headers(stream: pending.stream, fields: fields, endStream: pending.endStream)
    }

    /// The server ended its side of the stream: a body it no longer waits for is not sent, and the stream is ended
    /// (RFC 9113 §8.1 lets a server answer before the request is complete).
    private mutating func answered(_ stream: UInt32) {
        guard let index = heldBodies.firstIndex(where: { $0.stream == stream }) else { return }
        heldBodies.remove(at: index)
        FrameWriter.resetStream(stream, code: .cancel, into: &output)
    }
}
