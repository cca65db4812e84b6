import HeraldWire
import NIOCore
import NIOHTTP2

/// The provider API on one connection, working on HTTP/2 frames directly: it gathers each stream's
/// request, hands it to the processor and writes the answer on the same stream.
///
/// There is no channel per stream: a notification is one small request, and a stream channel costs more
/// than the request. The handler keeps the connection-level flow-control window open itself and coalesces
/// the answers that complete together into one flush. Every rule of the connection is its
/// ``ProviderConnection/StateMachine``'s, on the event loop's clock: the handler feeds it what happens, carries out
/// what it decides (SETTINGS, GOAWAY, closing, a held read) and keeps one timer armed for its next deadline. The rules:
/// idle connections get GOAWAY `IdleTimeout` (no frame read or written for `idleTimeout`).
///
/// Against clients that hold a connection without using it: one that has not sent the HTTP/2 preface (TLS
/// included) within `providerHandshakeTimeout` of its accept is closed, and one on which no request has shown its
/// sender (a valid provider token or client certificate) within `unusedConnectionTimeout` of its accept gets GOAWAY
/// `IdleTimeout` (PINGs and SETTINGS do not keep it; a request being processed then gets another period).
/// Against clients that send without reading: while the connection cannot take more writes, nothing more is read
/// (what the client sends waits in its own socket, not in the gateway), and a connection whose writes stay blocked
/// for `stalledConnectionTimeout` is closed; so is one whose answers wait that long for a flow-control window the
/// client never opens (a zero window holds an error answer's DATA in the HTTP/2 layer).
final class ProviderConnectionHandler: ChannelDuplexHandler, NIOScheduledCallbackHandler {
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
    private var machine: ProviderConnection.StateMachine
    /// The one timer, armed for `armedDeadline`.
    private var timer: NIOScheduledCallback?
    private var armedDeadline: NIODeadline?
    /// Set once a connection error has closed the connection.
    private var cutOff = false
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
        machine = ProviderConnection.StateMachine(configuration: configuration)
    }

    /// The reason requests completing now are refused with; nil while the connection is open.
    var closingReason: APNsReason? { machine.closingReason }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        connection.handler = self
        metrics.connectionOpened()
        if context.channel.isActive { becameActive(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarmTimer()
        self.context = nil
        connection.handler = nil
        metrics.connectionClosed()
    }

    func channelActive(context: ChannelHandlerContext) {
        becameActive(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarmTimer()
        context.fireChannelInactive()
    }

    private func becameActive(context: ChannelHandlerContext) {
        openConnectionWindow(context: context)
        machine.connected(now: context.eventLoop.now)
        armTimer()
    }

    /// Holds reads while the connection cannot take more writes: a client that sends requests without reading the
    /// answers (or PINGs and SETTINGS without reading the acknowledgements) then waits in its own socket buffer.
    func read(context: ChannelHandlerContext) {
        if machine.readRequested() { context.read() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        run(machine.writabilityChanged(writable: context.channel.isWritable, now: context.eventLoop.now))
        armTimer()
        context.fireChannelWritabilityChanged()
    }

    private func openConnectionWindow(context: ChannelHandlerContext) {
        let increment = Self.connectionWindow - 65_535
        context.writeAndFlush(
            wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reading = true
        machine.frameRead()
        let frame = unwrapInboundIn(data)
        let id = frame.streamID
        switch frame.payload {
        case .headers(let headers):
            if machine.headersReceived(on: id) {
                guard RequestHeaderBlock.isWellFormed(headers.headers) else { return reset(id, context: context) }
                machine.streamOpened(id)
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
            if let stream = streams.removeValue(forKey: id) { streamClosed(id, stream) }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        machine.active(now: context.eventLoop.now)
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A request brings three window updates, a stream's creation and its closing. Comparing the event's type
        // first costs a pointer comparison; an `as` from `Any` is a dynamic cast even when it fails (callgrind:
        // 2,100 instructions per notification when every event went through them).
        let eventType = type(of: event)
        if eventType == NIOHTTP2WindowUpdatedEvent.self, let window = event as? NIOHTTP2WindowUpdatedEvent {
            // Top the connection window up once half is used: every byte the client sent counts, including
            // padding and DATA for streams already answered, so clients never stall on it.
            if window.streamID == .rootStream, let size = window.inboundWindowSize, size < Self.connectionWindow / 2 {
                context.write(
                    wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.connectionWindow - size))),
                    promise: nil)
                needsFlush = true
                if !reading { scheduleFlush() }
            }
        } else if eventType == StreamClosedEvent.self, let closed = event as? StreamClosedEvent {
            // The HTTP/2 layer closed a stream we still held (a protocol error on it): forget it.
            if let stream = streams.removeValue(forKey: closed.streamID) { streamClosed(closed.streamID, stream) }
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
        guard case .refuseUnsubmittedStreams = machine.connectionError() else {
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

    // MARK: Requests and answers

    /// Ends a stream unanswered: a malformed request with PROTOCOL_ERROR (RFC 9113 §8.1.1); the connection carries on.
    private func reset(_ id: HTTP2StreamID, _ code: HTTP2ErrorCode = .protocolError, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(code))), promise: nil)
        needsFlush = true
        if let stream = streams.removeValue(forKey: id) { streamClosed(id, stream) }
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
        machine.requestSubmitted()
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
            machine.answerWaits(now: context.eventLoop.now)
            armTimer()
        }
        let (hasBody, requestEnded) = (body != nil, stream.requestEnded)
        sent?.futureResult.assumeIsolated().whenComplete { _ in
            if hasBody { self.machine.answerWentOut(now: context.eventLoop.now) }
            guard !requestEnded else { return }
            context.writeAndFlush(self.wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.noError))), promise: nil)
        }
        streamClosed(id, stream)
        needsFlush = true
        if !reading { scheduleFlush() }
    }

    private func streamClosed(_ id: HTTP2StreamID, _ stream: OpenStream) {
        run(machine.streamClosed(id, wasSubmitted: stream.submitted))
    }

    /// An answer was given (nil: a 200); called by the processor's side through ``ProviderConnection/record(_:)``.
    func answered(_ rejection: Rejection?) {
        guard let context else { return }
        if connection.senderKnown { machine.senderShown() }
        for action in machine.answered(rejection, now: context.eventLoop.now) { run(action) }
        armTimer()
    }

    /// Closing begins (``ProviderConnection/startDraining(_:)``).
    func startClosing(_ reason: APNsReason) {
        guard let context else { return }
        for action in machine.startClosing(reason, now: context.eventLoop.now) { run(action) }
        armTimer()
    }

    // MARK: Carrying out the state machine's decisions

    private func run(_ action: ProviderConnection.StateMachine.Action?) {
        guard let action, let context else { return }
        switch action {
        case .announce(let maximumConcurrentStreams):
            let settings = HTTP2Frame(
                streamID: .rootStream,
                payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: maximumConcurrentStreams)])))
            context.writeAndFlush(wrapOutboundOut(settings), promise: nil)
        case .sendGoAway(let lastStreamID, let reason, let thenClose):
            let debugData = context.channel.allocator.buffer(string: #"{"reason":"\#(reason.rawValue)"}"#)
            let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: debugData))
            context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
            if thenClose { context.close(promise: nil) }
        case .close:
            context.flush()
            context.close(promise: nil)
        case .count(let reason):
            metrics.providerConnectionClosed(reason)
        case .refuseUnsubmittedStreams:
            for (id, stream) in streams where !stream.submitted {
                reset(id, .refusedStream, context: context)
            }
            flushIfNeeded()
        case .read:
            context.read()
        }
    }

    /// Keeps the timer armed for the machine's next deadline: re-armed only when that comes earlier than the armed one
    /// (a later one is found when the timer fires early).
    private func armTimer() {
        guard let context else { return }
        guard let next = machine.nextDeadline else { return disarmTimer() }
        if let armed = armedDeadline, armed <= next { return }
        timer?.cancel()
        armedDeadline = next
        timer = try? context.eventLoop.assumeIsolated().scheduleCallback(at: next, handler: self)
    }

    private func disarmTimer() {
        timer?.cancel()
        timer = nil
        armedDeadline = nil
    }

    func handleScheduledCallback(eventLoop: some EventLoop) {
        disarmTimer()  // it fired: cancelling it does nothing
        if connection.senderKnown { machine.senderShown() }
        for action in machine.timerFired(now: eventLoop.now) { run(action) }
        armTimer()
    }

    // MARK: Flushing

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
        machine.active(now: context.eventLoop.now)
        context.flush()
    }
}
