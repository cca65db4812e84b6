package import HeraldHTTP2
package import NIOCore

/// RFC 9113's rules for the server side of one connection, as plain values (no channel, no clock): it is handed each
/// frame the client sent and says what it means for the application (a request, its body, a stream gone), and writes
/// what the rules answer (SETTINGS and PING acknowledgements, window updates, stream resets) into ``output``. Answers go
/// out through ``respond(stream:status:fields:body:)``, their DATA held while the client's windows are closed.
///
/// The provider port's HTTP/2 layer (issue 40), which ``ProviderConnectionHandler`` drives. Floods of what costs the
/// server and serves no request end the connection with ENHANCE_YOUR_CALM (``FloodLimits``).
package struct HTTP2ServerConnection {
    package struct Settings: Sendable {
        package var maximumConcurrentStreams: UInt32 = 100
        /// Each stream's receive window, announced as SETTINGS_INITIAL_WINDOW_SIZE.
        package var initialWindowSize = 1 << 20
        package var maximumFrameSize = 16_384
        package var headerTableSize = 4096
        package var maximumHeaderListSize = 16_384
        /// The connection's receive window, opened with a WINDOW_UPDATE after the SETTINGS (never below the
        /// protocol's 65,535, which only a WINDOW_UPDATE could change).
        package var connectionWindow = 1 << 20
        package var limits = FloodLimits()

        package init() {}
    }

    package enum Event {
        /// A stream's request headers; `endStream` when it has no body.
        case request(stream: UInt32, fields: [(name: String, value: String)], endStream: Bool)
        /// A stream's trailers, which end its request.
        case trailers(stream: UInt32, fields: [(name: String, value: String)])
        case data(stream: UInt32, bytes: ByteBuffer, endStream: Bool)
        /// The stream ended without an answer: the client reset it, or the rules did (the RST_STREAM is in `output`).
        case streamClosed(stream: UInt32, code: FrameErrorCode)
        /// The client is going away; streams above `lastStream` were not processed by it (a server sends none).
        case goAway(lastStream: UInt32, code: UInt32)
    }

    private struct Stream {
        var receiveWindow: Int
        var sendWindow: Int
        var requestEnded: Bool
        /// An answer's body waiting for window, and whether the answer is complete with it.
        var heldBody: ByteBuffer?
    }

    /// A header block being gathered from HEADERS and CONTINUATION frames.
    private struct PendingBlock {
        var stream: UInt32
        var endStream: Bool
        var fragment: ByteBuffer
        var continuations = 0
    }

    private static let maximumWindow = Int(Int32.max)

    package let settings: Settings
    /// What the connection has to send, in order; the caller writes it out and clears it.
    package var output = ByteBuffer()
    /// The stream limit in force: a SETTINGS_MAX_CONCURRENT_STREAMS applies once the client acknowledges it (a
    /// raise at once), and until the first acknowledgement ``limitBeforeAcknowledgement`` does.
    package private(set) var maximumConcurrentStreams: UInt32
    /// What each SETTINGS frame sent and not yet acknowledged set the stream limit to (nil: left it alone).
    private var unacknowledgedLimits: [UInt32?] = []
    /// Streams allowed before the client has acknowledged the first SETTINGS: a client may send its first requests
    /// before reading them (RFC 9113 §6.5.3), and swift-nio-http2 allowed 100 then.
    package static let limitBeforeAcknowledgement: UInt32 = 100
    package private(set) var highestStream: UInt32 = 0
    /// Answers whose DATA waits for the client's flow-control windows.
    package private(set) var answersWaitingForWindow = 0
    private var streams: [UInt32: Stream] = [:]
    private var decoder: HeaderBlockDecoder
    private var pendingBlock: PendingBlock?
    private var receivedSettings = false
    private var peerInitialWindow = 65_535
    private var peerMaximumFrameSize = 16_384
    private var connectionReceiveWindow: Int
    private var connectionSendWindow = 65_535
    private var goingAway = false
    /// The time of the frame being read, for the flood limits' windows.
    private var now = NIODeadline.uptimeNanoseconds(0)
    private var clientResets: RateWindow
    private var streamErrors: RateWindow
    private var controlFrames: RateWindow
    private var emptyDataFramesInARow = 0
    /// Streams closed lately, newest last: late frames for them are ignored.
    private var recentlyClosed: CircularBuffer<UInt32>

    package init(settings: Settings = Settings()) {
        var settings = settings
        settings.connectionWindow = max(65_535, settings.connectionWindow)
        self.settings = settings
        maximumConcurrentStreams = max(settings.maximumConcurrentStreams, Self.limitBeforeAcknowledgement)
        unacknowledgedLimits = [settings.maximumConcurrentStreams]
        decoder = HeaderBlockDecoder(maximumTableSize: settings.headerTableSize, maximumListSize: settings.maximumHeaderListSize)
        connectionReceiveWindow = settings.connectionWindow
        let limits = settings.limits
        clientResets = RateWindow(limit: limits.clientResets, length: limits.window)
        streamErrors = RateWindow(limit: limits.streamErrors, length: limits.window)
        controlFrames = RateWindow(limit: limits.controlFrames, length: limits.window)
        recentlyClosed = CircularBuffer(initialCapacity: limits.recentlyClosedStreams)
        FrameWriter.settings(
            [
                (0x1, UInt32(settings.headerTableSize)), (0x2, 0), (0x3, settings.maximumConcurrentStreams),
                (0x4, UInt32(settings.initialWindowSize)), (0x5, UInt32(settings.maximumFrameSize)),
                (0x6, UInt32(settings.maximumHeaderListSize)),
            ], into: &output)
        if settings.connectionWindow > 65_535 {
            FrameWriter.windowUpdate(stream: 0, increment: UInt32(settings.connectionWindow - 65_535), into: &output)
        }
    }

    /// Streams open now (a request being received or answered).
    package var openStreams: Int { streams.count }

    // MARK: Frames in

    /// What the frame means, after the rules; nil when nothing for the application (SETTINGS, PING, WINDOW_UPDATE…).
    ///
    /// - Throws: a ``ConnectionFault`` for an error of the connection: send GOAWAY with its code and close.
    package mutating func receive(_ header: FrameHeader, _ payload: ByteBuffer, now: NIODeadline) throws(ConnectionFault) -> Event? {
        self.now = now
        if header.knownType == .data && header.length == 0 && header.flags & FrameHeader.Flag.endStream == 0 {
            emptyDataFramesInARow += 1
            guard emptyDataFramesInARow <= settings.limits.emptyDataFramesInARow else {
                throw fault(.enhanceYourCalm, "\(emptyDataFramesInARow) empty DATA frames in a row", label: "ExcessiveEmptyDataFrames")
            }
        } else {
            emptyDataFramesInARow = 0
        }
        if let pending = pendingBlock, header.knownType != .continuation || header.streamID != pending.stream {
            throw fault(.protocolError, "a header block interrupted by another frame")
        }
        guard receivedSettings || header.knownType == .settings && header.flags & FrameHeader.Flag.ack == 0 else {
            throw fault(.protocolError, "the first frame must be SETTINGS")
        }
        switch header.knownType {
        case .settings:
            try countControlFrame(header)
            try receiveSettings(header, payload)
        case .ping:
            guard header.streamID == 0 else { throw fault(.protocolError, "PING on a stream") }
            guard header.length == 8 else { throw fault(.frameSizeError, "PING of \(header.length) bytes") }
            try countControlFrame(header)
            if header.flags & FrameHeader.Flag.ack == 0, let opaque = payload.getInteger(at: payload.readerIndex, as: UInt64.self) {
                FrameWriter.pingAcknowledgement(opaque, into: &output)
            }
        case .headers:
            guard header.streamID != 0 else { throw fault(.protocolError, "HEADERS on stream 0") }
            var fragment = try FrameReader.unpadded(payload, flags: header.flags)
            if header.flags & FrameHeader.Flag.priority != 0 {
                guard fragment.readSlice(length: 5) != nil else { throw fault(.frameSizeError, "HEADERS too short for its priority") }
            }
            pendingBlock = PendingBlock(stream: header.streamID, endStream: header.flags & FrameHeader.Flag.endStream != 0, fragment: fragment)
            if header.flags & FrameHeader.Flag.endHeaders != 0 { return try finishBlock() }
        case .continuation:
            guard var pending = pendingBlock else { throw fault(.protocolError, "CONTINUATION without a header block") }
            pending.continuations += 1
            guard pending.continuations <= settings.limits.continuationFrames else {
                throw fault(
                    .enhanceYourCalm, "\(pending.continuations) CONTINUATION frames in one header block", label: "ExcessiveContinuationFrames")
            }
            var more = payload
            pending.fragment.writeBuffer(&more)
            guard pending.fragment.readableBytes <= settings.maximumHeaderListSize * 2 else {
                throw fault(
                    .enhanceYourCalm, "a header block of more than \(settings.maximumHeaderListSize * 2) bytes", label: "ExcessiveHeaderBlock")
            }
            pendingBlock = pending
            if header.flags & FrameHeader.Flag.endHeaders != 0 { return try finishBlock() }
        case .data: return try receiveData(header, payload)
        case .resetStream:
            guard header.streamID != 0 else { throw fault(.protocolError, "RST_STREAM on stream 0") }
            guard header.length == 4 else { throw fault(.frameSizeError, "RST_STREAM of \(header.length) bytes") }
            guard header.streamID <= highestStream else { throw fault(.protocolError, "RST_STREAM on an idle stream") }
            guard !clientResets.record(at: now) else {
                throw fault(.enhanceYourCalm, "too many streams reset by the client", label: "ExcessiveRSTFrames")
            }
            let code = payload.getInteger(at: payload.readerIndex, as: UInt32.self).flatMap(FrameErrorCode.init) ?? .internalError
            if let stream = streams.removeValue(forKey: header.streamID) {
                if stream.heldBody != nil { answersWaitingForWindow -= 1 }
                closed(header.streamID)
                return .streamClosed(stream: header.streamID, code: code)
            }
        case .windowUpdate: try receiveWindowUpdate(header, payload)
        case .priority:
            guard header.streamID != 0 else { throw fault(.protocolError, "PRIORITY on stream 0") }
            if header.length != 5 { return try resetStream(header.streamID, .frameSizeError) }
        case .pushPromise: throw fault(.protocolError, "a client may not push")
        case .goAway:
            guard header.streamID == 0 else { throw fault(.protocolError, "GOAWAY on a stream") }
            guard header.length >= 8, let last = payload.getInteger(at: payload.readerIndex, as: UInt32.self),
                let code = payload.getInteger(at: payload.readerIndex + 4, as: UInt32.self)
            else { throw fault(.frameSizeError, "GOAWAY of \(header.length) bytes") }
            return .goAway(lastStream: last & 0x7FFF_FFFF, code: code)
        case nil: break  // unknown types are ignored (RFC 9113 §4.1)
        }
        return nil
    }

    private mutating func receiveSettings(_ header: FrameHeader, _ payload: ByteBuffer) throws(ConnectionFault) {
        guard header.streamID == 0 else { throw fault(.protocolError, "SETTINGS on a stream") }
        if header.flags & FrameHeader.Flag.ack != 0 {
            guard header.length == 0 else { throw fault(.frameSizeError, "a SETTINGS acknowledgement with a payload") }
            if !unacknowledgedLimits.isEmpty, let limit = unacknowledgedLimits.removeFirst() { maximumConcurrentStreams = limit }
            return
        }
        guard header.length % 6 == 0 else { throw fault(.frameSizeError, "SETTINGS of \(header.length) bytes") }
        var payload = payload
        while let identifier = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
            switch identifier {
            case 0x2:
                guard value <= 1 else { throw fault(.protocolError, "SETTINGS_ENABLE_PUSH of \(value)") }
            case 0x4:
                guard value <= UInt32(Self.maximumWindow) else { throw fault(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE of \(value)") }
                let change = Int(value) - peerInitialWindow
                for (id, var stream) in streams {
                    stream.sendWindow += change
                    guard stream.sendWindow <= Self.maximumWindow else { throw fault(.flowControlError, "a stream's window past 2^31 - 1") }
                    streams[id] = stream
                }
                peerInitialWindow = Int(value)
            case 0x5:
                guard (16_384...16_777_215).contains(value) else { throw fault(.protocolError, "SETTINGS_MAX_FRAME_SIZE of \(value)") }
                peerMaximumFrameSize = Int(value)
            default:
                break  // the table size (answers never index), streams (a server does not push), list size, unknown
            }
        }
        receivedSettings = true
        FrameWriter.settingsAcknowledgement(into: &output)
        sendHeldBodies()
    }

    private mutating func receiveData(_ header: FrameHeader, _ payload: ByteBuffer) throws(ConnectionFault) -> Event? {
        guard header.streamID != 0 else { throw fault(.protocolError, "DATA on stream 0") }
        // Padding counts against the windows too (RFC 9113 §6.9.1).
        connectionReceiveWindow -= header.length
        guard connectionReceiveWindow >= 0 else { throw fault(.flowControlError, "DATA past the connection's window") }
        if connectionReceiveWindow <= settings.connectionWindow / 2 {
            FrameWriter.windowUpdate(stream: 0, increment: UInt32(settings.connectionWindow - connectionReceiveWindow), into: &output)
            connectionReceiveWindow = settings.connectionWindow
        }
        guard var stream = streams[header.streamID], !stream.requestEnded else {
            guard header.streamID <= highestStream else { throw fault(.protocolError, "DATA on an idle stream") }
            if recentlyClosed.contains(header.streamID) { return nil }  // sent before the client learnt of the close
            return try resetStream(header.streamID, .streamClosed)
        }
        stream.receiveWindow -= header.length
        guard stream.receiveWindow >= 0 else { return try resetStream(header.streamID, .flowControlError) }
        let endStream = header.flags & FrameHeader.Flag.endStream != 0
        if !endStream && stream.receiveWindow <= settings.initialWindowSize / 2 {
            let increment = settings.initialWindowSize - stream.receiveWindow
            FrameWriter.windowUpdate(stream: header.streamID, increment: UInt32(increment), into: &output)
            stream.receiveWindow = settings.initialWindowSize
        }
        stream.requestEnded = endStream
        streams[header.streamID] = stream
        return .data(stream: header.streamID, bytes: try FrameReader.unpadded(payload, flags: header.flags), endStream: endStream)
    }

    private mutating func receiveWindowUpdate(_ header: FrameHeader, _ payload: ByteBuffer) throws(ConnectionFault) {
        guard header.length == 4, let raw = payload.getInteger(at: payload.readerIndex, as: UInt32.self) else {
            throw fault(.frameSizeError, "WINDOW_UPDATE of \(header.length) bytes")
        }
        let increment = Int(raw & 0x7FFF_FFFF)
        if header.streamID == 0 {
            guard increment > 0 else { throw fault(.protocolError, "a WINDOW_UPDATE of 0 for the connection") }
            connectionSendWindow += increment
            guard connectionSendWindow <= Self.maximumWindow else { throw fault(.flowControlError, "the connection's window past 2^31 - 1") }
        } else if header.streamID > highestStream {
            throw fault(.protocolError, "WINDOW_UPDATE on an idle stream")
        } else if var stream = streams[header.streamID] {
            guard increment > 0 else {
                _ = try resetStream(header.streamID, .protocolError)
                return
            }
            stream.sendWindow += increment
            guard stream.sendWindow <= Self.maximumWindow else {
                _ = try resetStream(header.streamID, .flowControlError)
                return
            }
            streams[header.streamID] = stream
        }
        sendHeldBodies()
    }

    /// Decodes a complete header block: a new stream's request, or an open stream's trailers.
    private mutating func finishBlock() throws(ConnectionFault) -> Event? {
        guard let pending = pendingBlock else { return nil }
        pendingBlock = nil
        let id = pending.stream
        let fields: [(name: String, value: String)]?
        do {
            fields = try pending.fragment.withUnsafeReadableBytes { (bytes) throws(HeaderBlockDecoder.Failure) in try decoder.decode(bytes) }
        } catch .malformed(let reason) {
            throw fault(.compressionError, reason)
        } catch {
            fields = nil  // a list above the limit: the connection is closed (as swift-nio-http2 did), below
        }
        if var stream = streams[id] {
            guard !stream.requestEnded else { return try resetStream(id, .streamClosed) }
            guard let fields else {
                throw fault(
                    .enhanceYourCalm, "a header list above the \(settings.maximumHeaderListSize) bytes announced", label: "ExcessiveHeaderList")
            }
            guard pending.endStream else { return try resetStream(id, .protocolError) }
            stream.requestEnded = true
            streams[id] = stream
            return .trailers(stream: id, fields: fields)
        }
        guard id & 1 == 1 else { throw fault(.protocolError, "a client stream with an even number") }
        guard id > highestStream else {
            if recentlyClosed.contains(id) { return nil }  // sent before the client learnt of the close
            throw fault(.streamClosed, "HEADERS on closed stream \(id)")
        }
        highestStream = id
        guard !goingAway else {
            // Past our GOAWAY: never processed, which REFUSED_STREAM tells the client at once (safe to send again).
            FrameWriter.resetStream(id, code: .refusedStream, into: &output)
            closed(id)
            return nil
        }
        guard let fields else {
            throw fault(.enhanceYourCalm, "a header list above the \(settings.maximumHeaderListSize) bytes announced", label: "ExcessiveHeaderList")
        }
        guard streams.count < Int(maximumConcurrentStreams) else {
            FrameWriter.resetStream(id, code: .refusedStream, into: &output)
            closed(id)
            return nil
        }
        streams[id] = Stream(receiveWindow: settings.initialWindowSize, sendWindow: peerInitialWindow, requestEnded: pending.endStream)
        return .request(stream: id, fields: fields, endStream: pending.endStream)
    }

    // MARK: Frames out

    /// Writes an answer: its HEADERS, then its body as DATA as far as the client's windows allow (the rest when they
    /// open). A stream the client has not finished sending on is reset with NO_ERROR once answered (RFC 9113 §8.1).
    package mutating func respond(stream id: UInt32, status: Int, fields: [(name: String, value: String)], body: ByteBuffer?) {
        guard var stream = streams[id] else { return }  // reset meanwhile
        let hasBody = (body?.readableBytes ?? 0) > 0
        FrameWriter.responseHeaders(stream: id, status: status, fields: fields, endStream: !hasBody, into: &output)
        guard hasBody, let body else { return finish(id) }
        stream.heldBody = body
        streams[id] = stream
        answersWaitingForWindow += 1
        sendBody(of: id)
    }

    /// Tells the client the streams above `lastStream` (the last one seen, unless given) will not be processed, and
    /// refuses new ones from now on.
    package mutating func goAway(lastStream: UInt32? = nil, _ code: FrameErrorCode, debugData: [UInt8] = []) {
        goingAway = true
        FrameWriter.goAway(lastStream: lastStream ?? highestStream, code: code, debugData: debugData, into: &output)
    }

    /// Ends a stream unanswered with RST_STREAM (the application refuses a request).
    package mutating func reset(stream id: UInt32, _ code: FrameErrorCode) {
        FrameWriter.resetStream(id, code: code, into: &output)
        if let stream = streams.removeValue(forKey: id), stream.heldBody != nil { answersWaitingForWindow -= 1 }
        closed(id)
    }

    /// A new SETTINGS_MAX_CONCURRENT_STREAMS (raised once a request has shown its sender, as APNs does): a raise
    /// applies at once, a cut once the client acknowledges it.
    package mutating func changeMaximumConcurrentStreams(to maximum: UInt32) {
        if maximum > maximumConcurrentStreams { maximumConcurrentStreams = maximum }
        unacknowledgedLimits.append(maximum)
        FrameWriter.settings([(0x3, maximum)], into: &output)
    }

    private mutating func sendHeldBodies() {
        for (id, stream) in streams where stream.heldBody != nil { sendBody(of: id) }
    }

    private mutating func sendBody(of id: UInt32) {
        guard var stream = streams[id], var body = stream.heldBody else { return }
        while body.readableBytes > 0 {
            let size = min(body.readableBytes, stream.sendWindow, connectionSendWindow, peerMaximumFrameSize)
            guard size > 0 else { break }
            let chunk = body.readSlice(length: size)!
            stream.sendWindow -= size
            connectionSendWindow -= size
            FrameWriter.data(stream: id, chunk, endStream: body.readableBytes == 0, into: &output)
        }
        stream.heldBody = body.readableBytes > 0 ? body : nil
        streams[id] = stream
        if stream.heldBody == nil {
            answersWaitingForWindow -= 1
            finish(id)
        }
    }

    private mutating func finish(_ id: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        closed(id)
        if !stream.requestEnded { FrameWriter.resetStream(id, code: .noError, into: &output) }
    }

    /// Resets a stream that broke a rule (a stream error); too many of them end the connection.
    private mutating func resetStream(_ id: UInt32, _ code: FrameErrorCode) throws(ConnectionFault) -> Event? {
        guard !streamErrors.record(at: now) else { throw fault(.enhanceYourCalm, "too many stream errors", label: "ExcessiveStreamErrors") }
        FrameWriter.resetStream(id, code: code, into: &output)
        closed(id)
        guard let stream = streams.removeValue(forKey: id) else { return nil }
        if stream.heldBody != nil { answersWaitingForWindow -= 1 }
        return .streamClosed(stream: id, code: code)
    }

    private mutating func closed(_ id: UInt32) {
        if recentlyClosed.count == settings.limits.recentlyClosedStreams { recentlyClosed.removeFirst() }
        if settings.limits.recentlyClosedStreams > 0 { recentlyClosed.append(id) }
    }

    private mutating func countControlFrame(_ header: FrameHeader) throws(ConnectionFault) {
        guard header.flags & FrameHeader.Flag.ack == 0, controlFrames.record(at: now) else { return }
        throw fault(.enhanceYourCalm, "too many PING and SETTINGS frames", label: "ExcessiveControlFrames")
    }

    private func fault(_ code: FrameErrorCode, _ reason: String, label: String? = nil) -> ConnectionFault {
        ConnectionFault(code: code, reason: reason, label: label)
    }
}
