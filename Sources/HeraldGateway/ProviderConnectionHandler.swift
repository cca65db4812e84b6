import HeraldWire
import NIOCore
import NIOHTTP2

/// The provider API on one connection, working on HTTP/2 frames directly: it gathers each stream's
/// request, hands it to the processor and writes the answer on the same stream.
///
/// There is no channel per stream: a notification is one small request, and a stream channel costs more
/// than the request. The handler keeps the connection-level flow-control window open itself, coalesces
/// the answers that complete together into one flush, and closes idle connections with GOAWAY `IdleTimeout`
/// (no frame read or written for `idleTimeout`, by the event loop's clock).
///
/// Against clients that hold a connection without using it: one that has not sent the HTTP/2 preface (TLS
/// included) within `providerHandshakeTimeout` of its accept is closed, and one on which no request has shown its
/// sender (a valid provider token or client certificate) within `unusedConnectionTimeout` of its accept gets GOAWAY
/// `IdleTimeout` (PINGs and SETTINGS do not keep it; a request being processed then gets another period).
/// Against clients that send without reading: while the connection cannot take more writes, nothing more is read
/// (what the client sends waits in its own socket, not in the gateway), and a connection whose writes stay blocked
/// for `stalledConnectionTimeout` is closed; so is one whose answers wait that long for a flow-control window the
/// client never opens (a zero window holds an error answer's DATA in the HTTP/2 layer).
final class ProviderConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct OpenStream {
        var headers: [(name: String, value: String)]
        var body: ByteBuffer
        var bodyLength = 0
        var requestEnded = false
        var submitted = false
    }

    /// The connection-level receive window the gateway offers (the protocol's initial 65,535 is too small).
    private static let connectionWindow = 1 << 20

    private let connection: ProviderConnection
    private let processor: ProviderRequestProcessor
    private let metrics: GatewayMetrics
    private let idleTimeout: TimeAmount
    private let handshakeTimeout: TimeAmount
    private let unusedTimeout: TimeAmount
    private let stalledTimeout: TimeAmount
    /// When the connection is unused, unless a request shows its sender before.
    private var unusedDeadline = NIODeadline.uptimeNanoseconds(0)
    /// When a frame was last read or written (at the end of each read, at each flush).
    private var lastActivity = NIODeadline.uptimeNanoseconds(0)
    private var idleTimer: Scheduled<Void>?
    /// Armed from the accept until the first frame (the client's SETTINGS, after the preface).
    private var handshakeTimer: Scheduled<Void>?
    /// Armed while the channel is not writable.
    private var stalledTimer: Scheduled<Void>?
    /// Answers whose DATA waits in the HTTP/2 layer for the client's flow-control window, and when the wait last
    /// moved (one went out, or the first began waiting); the timer checks that it moves within `stalledTimeout`.
    private var answersWaiting = 0
    private var answersMoved = NIODeadline.uptimeNanoseconds(0)
    private var answersTimer: Scheduled<Void>?
    /// Set once a connection error has closed the connection.
    private var cutOff = false
    /// A read the channel asked for while it was not writable, passed on once it is.
    private var readHeld = false
    private var streams: [HTTP2StreamID: OpenStream] = [:]
    private var context: ChannelHandlerContext?
    private var reading = false
    private var needsFlush = false
    private var flushScheduled = false
    private var indexedIDHeaders: IndexedIDHeaders = []

    init(connection: ProviderConnection, processor: ProviderRequestProcessor, metrics: GatewayMetrics, configuration: GatewayConfiguration) {
        self.connection = connection
        self.processor = processor
        self.metrics = metrics
        idleTimeout = configuration.idleTimeout
        handshakeTimeout = configuration.providerHandshakeTimeout
        unusedTimeout = configuration.unusedConnectionTimeout
        stalledTimeout = configuration.stalledConnectionTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        metrics.connectionOpened()
        if context.channel.isActive { becameActive(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        self.context = nil
        metrics.connectionClosed()
    }

    func channelActive(context: ChannelHandlerContext) {
        becameActive(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        context.fireChannelInactive()
    }

    private func cancelTimers() {
        for timer in [idleTimer, handshakeTimer, stalledTimer, answersTimer] { timer?.cancel() }
    }

    private func becameActive(context: ChannelHandlerContext) {
        openConnectionWindow(context: context)
        lastActivity = context.eventLoop.now
        unusedDeadline = lastActivity + unusedTimeout
        armIdleTimer(at: idleDeadline, context: context)
        handshakeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: handshakeTimeout) { [metrics] in
            metrics.providerConnectionClosed("handshake_timeout")
            context.close(promise: nil)
        }
    }

    /// Holds reads while the connection cannot take more writes: a client that sends requests without reading the
    /// answers (or PINGs and SETTINGS without reading the acknowledgements) then waits in its own socket buffer.
    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            context.read()
        } else {
            readHeld = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stalledTimer?.cancel()
            stalledTimer = nil
            if readHeld {
                readHeld = false
                context.read()
            }
        } else if stalledTimer == nil {
            stalledTimer = context.eventLoop.assumeIsolated().scheduleTask(in: stalledTimeout) { [metrics] in
                metrics.providerConnectionClosed("stalled")
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// When the connection is idle if nothing more happens: `idleTimeout` after its last activity, and until a
    /// request shows its sender, at the unused deadline at the latest.
    private var idleDeadline: NIODeadline {
        let idle = lastActivity + idleTimeout
        return connection.senderKnown ? idle : min(idle, unusedDeadline)
    }

    /// Checks for idleness when the connection would have been idle; activity (or an accepted request) meanwhile
    /// moves the check on.
    private func armIdleTimer(at deadline: NIODeadline, context: ChannelHandlerContext) {
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            guard let context = self.context else { return }
            let now = context.eventLoop.now
            if !connection.senderKnown, now >= unusedDeadline, streams.values.contains(where: \.submitted) {
                unusedDeadline = now + unusedTimeout  // its first request is being processed: not unused
            }
            let due = idleDeadline
            if now >= due {
                if !connection.senderKnown { metrics.providerConnectionClosed("unused") }
                connection.startDraining(.idleTimeout)
            } else {
                armIdleTimer(at: due, context: context)
            }
        }
    }

    private func openConnectionWindow(context: ChannelHandlerContext) {
        let increment = Self.connectionWindow - 65_535
        context.writeAndFlush(
            wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        if let timer = handshakeTimer {
            timer.cancel()
            handshakeTimer = nil
        }
        let frame = unwrapInboundIn(data)
        let id = frame.streamID
        switch frame.payload {
        case .headers(let headers):
            if connection.headersReceived(on: id) {
                guard RequestHeaderBlock.isWellFormed(headers.headers) else { return reset(id, context: context) }
                connection.streamOpened(id)
                let stream = OpenStream(headers: headers.headers.map { ($0.name, $0.value) }, body: context.channel.allocator.buffer(capacity: 0))
                update(id, stream, requestEnded: headers.endStream)
            } else if let stream = streams[id] {
                // HEADERS on an open stream are trailers.
                guard RequestHeaderBlock.isWellFormedTrailers(headers.headers) else { return reset(id, context: context) }
                if headers.endStream { update(id, stream, requestEnded: true) }
            }
        case .data(let data):
            if case .byteBuffer(var bytes) = data.data, var stream = streams[id] {
                stream.bodyLength += bytes.readableBytes
                let room = ProviderRequest.bodyKeepLimit - stream.body.readableBytes
                if room > 0, let kept = bytes.readSlice(length: min(room, bytes.readableBytes)) {
                    stream.body.writeImmutableBuffer(kept)
                }
                update(id, stream, requestEnded: data.endStream)
            }
        case .rstStream:
            if streams.removeValue(forKey: id) != nil { connection.streamClosed(id) }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        lastActivity = context.eventLoop.now
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Most frequent first: a request brings three window updates, a stream's creation and its closing, and
        // each `as` that fails is a dynamic cast.
        switch event {
        case let window as NIOHTTP2WindowUpdatedEvent:
            // Top the connection window up once half is used: every byte the client sent counts, including
            // padding and DATA for streams already answered, so clients never stall on it.
            if window.streamID == .rootStream, let size = window.inboundWindowSize, size < Self.connectionWindow / 2 {
                context.write(
                    wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.connectionWindow - size))),
                    promise: nil)
                needsFlush = true
                if !reading { scheduleFlush() }
            }
        case let closed as StreamClosedEvent:
            // The HTTP/2 layer closed a stream we still held (a protocol error on it): forget it.
            if streams.removeValue(forKey: closed.streamID) != nil { connection.streamClosed(closed.streamID) }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A stream error ends one stream (the HTTP/2 layer has reset it); the other answers still go out.
        // (Malformed header blocks never get here: channelRead resets their streams itself.)
        // Connection errors (floods, oversized frames, bad HPACK) end the connection, never the process.
        guard !Self.isStreamScoped(error) else { return }
        // Closing: frames a client sent before it read the GOAWAY make the HTTP/2 layer raise errors (DATA for a
        // stream past the GOAWAY, whose HEADERS it ignored), and it stops reading the rest of what arrived. Accepted
        // requests still get their answers; requests still arriving are refused (never processed, safe to send
        // again), and the connection closes once nothing is owed.
        guard case .refuseUnsubmittedStreams = connection.connectionError() else {
            // What ended it, by type: NIOHTTP2's ExcessiveRSTFrames, ExcessiveContinuationFrames, … (or a TLS error).
            // Only the first: writes still queued then fail with IOOnClosedConnection, which is not a reason.
            if !cutOff {
                cutOff = true
                metrics.providerConnectionClosed(String(describing: type(of: error)))
            }
            return context.close(promise: nil)
        }
        for (id, stream) in streams where !stream.submitted {
            reset(id, .refusedStream, context: context)
        }
        flushIfNeeded()
    }

    private static func isStreamScoped(_ error: any Error) -> Bool {
        switch error {
        case is NIOHTTP2Errors.StreamError, is NIOHTTP2Errors.NoSuchStream, is NIOHTTP2Errors.StreamClosed,
            is NIOHTTP2Errors.MaxStreamsViolation, is NIOHTTP2Errors.CreatedStreamAfterGoaway,
            is NIOHTTP2Errors.TrailersWithoutEndStream, is NIOHTTP2Errors.ContentLengthViolated,
            is NIOHTTP2Errors.ContentLengthHeadersMismatch, is NIOHTTP2Errors.ContentLengthHeaderNegative,
            is NIOHTTP2Errors.ContentLengthHeaderMalformedValue:
            true
        default:
            false
        }
    }

    /// Ends a stream unanswered: a malformed request with PROTOCOL_ERROR (RFC 9113 §8.1.1); the connection carries on.
    private func reset(_ id: HTTP2StreamID, _ code: HTTP2ErrorCode = .protocolError, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(code))), promise: nil)
        needsFlush = true
        if streams.removeValue(forKey: id) != nil { connection.streamClosed(id) }
    }

    /// Keeps `stream` as read so far, and hands its request to the processor once it has ended, or as soon as
    /// its body is too large for every push type (answered without reading on).
    private func update(_ id: HTTP2StreamID, _ stream: OpenStream, requestEnded: Bool) {
        var stream = stream
        stream.requestEnded = stream.requestEnded || requestEnded
        let submits = !stream.submitted && (stream.requestEnded || stream.bodyLength > ProviderRequest.bodyKeepLimit)
        stream.submitted = stream.submitted || submits
        // Kept before processing: an answer can come at once, and it finds its stream here.
        streams[id] = stream
        guard submits else { return }
        let request = ProviderRequest(headers: stream.headers, body: stream.body, bodyLength: stream.bodyLength)
        processor.process(request, on: connection) { response in
            self.respond(id, response)
        }
    }

    private func respond(_ id: HTTP2StreamID, _ response: ProviderResponse) {
        guard let context, let stream = streams.removeValue(forKey: id) else { return }  // reset meanwhile
        let body = response.body(allocator: context.channel.allocator)
        // The answer's last frame; once it is out, a client still sending is told to stop (RFC 9113 §8.1).
        // Resetting earlier would drop the answer's DATA still waiting in the flow-control buffer.
        let sent: EventLoopPromise<Void>? = stream.requestEnded && body == nil ? nil : context.eventLoop.makePromise()
        context.write(
            wrapOutboundOut(
                HTTP2Frame(streamID: id, payload: .headers(.init(headers: response.headers(indexed: &indexedIDHeaders), endStream: body == nil)))),
            promise: body == nil ? sent : nil)
        if let body {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: sent)
            answerWaits(context: context)
        }
        let (hasBody, requestEnded) = (body != nil, stream.requestEnded)
        sent?.futureResult.assumeIsolated().whenComplete { _ in
            if hasBody { self.answerWentOut(context: context) }
            guard !requestEnded else { return }
            context.writeAndFlush(self.wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.noError))), promise: nil)
        }
        connection.streamClosed(id)
        needsFlush = true
        if !reading { scheduleFlush() }
    }

    /// An answer's DATA is written; it may wait for the client's flow-control window.
    private func answerWaits(context: ChannelHandlerContext) {
        if answersWaiting == 0 { answersMoved = context.eventLoop.now }
        answersWaiting += 1
        if answersTimer == nil { armAnswersTimer(at: answersMoved + stalledTimeout, context: context) }
    }

    private func answerWentOut(context: ChannelHandlerContext) {
        answersWaiting -= 1
        answersMoved = context.eventLoop.now
    }

    /// Closes the connection if answers still wait and none went out for `stalledTimeout`; else checks again then.
    private func armAnswersTimer(at deadline: NIODeadline, context: ChannelHandlerContext) {
        answersTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            answersTimer = nil
            guard answersWaiting > 0, let context = self.context else { return }
            let due = answersMoved + stalledTimeout
            if context.eventLoop.now >= due {
                metrics.providerConnectionClosed("stalled")
                context.close(promise: nil)
            } else {
                armAnswersTimer(at: due, context: context)
            }
        }
    }

    /// Answers that complete in one event-loop turn (a store commit finishes many) share one flush.
    private func scheduleFlush() {
        guard !flushScheduled, let context else { return }
        flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            self.flushIfNeeded()
        }
    }

    private func flushIfNeeded() {
        guard needsFlush, let context else { return }
        needsFlush = false
        lastActivity = context.eventLoop.now
        context.flush()
    }
}
