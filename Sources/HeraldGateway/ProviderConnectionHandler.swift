import HeraldHTTP2
import HeraldWire
import NIOCore
import NIOHTTP2

/// The provider API on one connection: the bytes it reads cut into frames (``FrameReader``), RFC 9113's rules applied
/// to them (``HTTP2ServerConnection``), each stream's request gathered and handed to the processor, and its answer
/// written on the same stream. Answers that complete together share one write and one flush.
///
/// The HTTP/2 layer is Herald's own (issue 40): swift-nio-http2 with its HPACK took about 45% of the gateway's
/// instructions per notification. Every rule of the connection is its
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
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct OpenStream {
        var headers: [(name: String, value: String)]
        var body: ByteBuffer
        var bodyLength = 0
        var requestEnded = false
        var submitted = false
        /// The `content-length` the request declared, which its DATA must add up to (RFC 9113 §8.1.1).
        var declaredLength: Int?
    }

    private let connection: ProviderConnection
    private let processor: ProviderRequestProcessor
    private let metrics: GatewayMetrics
    private var machine: ProviderConnection.StateMachine
    /// The one timer, armed for `armedDeadline`.
    private var timer: NIOScheduledCallback?
    private var armedDeadline: NIODeadline?
    /// Set once a connection error has closed the connection, or a fault rule stalled it: nothing more is read or
    /// answered.
    private var cutOff = false
    /// A fault rule's GOAWAY: sent after this many more answers (docs/faults.md).
    private var goAwayCountdown: (reason: APNsReason, remaining: Int)?
    private var streams: [UInt32: OpenStream] = [:]
    private var context: ChannelHandlerContext?
    private var reading = false
    private var needsFlush = false
    private var flushScheduled = false
    private var reader: FrameReader
    private var http2: HTTP2ServerConnection

    init(connection: ProviderConnection, processor: ProviderRequestProcessor, metrics: GatewayMetrics, configuration: GatewayConfiguration) {
        self.connection = connection
        self.processor = processor
        self.metrics = metrics
        machine = ProviderConnection.StateMachine(configuration: configuration)
        var settings = HTTP2ServerConnection.Settings()
        settings.maximumConcurrentStreams = UInt32(configuration.unauthenticatedMaximumConcurrentStreams)
        settings.maximumFrameSize = configuration.maximumFrameSize
        settings.maximumHeaderListSize = configuration.maximumHeaderListSize
        settings.headerTableSize = configuration.headerTableSize
        reader = FrameReader(maximumFrameSize: configuration.maximumFrameSize)
        http2 = HTTP2ServerConnection(settings: settings)
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
        flushIfNeeded()  // the server's SETTINGS and the connection window's first update
        machine.connected(now: context.eventLoop.now)
        armTimer()
    }

    /// Holds reads while the connection cannot take more writes: a client that sends requests without reading the
    /// answers (or PINGs and SETTINGS without reading the acknowledgements) then waits in its own socket buffer.
    func read(context: ChannelHandlerContext) {
        // Once a connection error has ended the connection, nothing more is read: TLS takes up to 5 s to close, and a
        // flood would otherwise be decrypted and thrown away all that time.
        guard !cutOff else { return }
        if machine.readRequested() { context.read() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        run(machine.writabilityChanged(writable: context.channel.isWritable, now: context.eventLoop.now))
        armTimer()
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !cutOff else { return }
        reading = true
        var bytes = unwrapInboundIn(data)
        reader.append(&bytes)
        do {
            while let (header, payload) = try reader.next() {
                machine.frameRead()
                let waiting = http2.answersWaitingForWindow
                if let event = try http2.receive(header, payload, now: context.eventLoop.now) { handle(event, context: context) }
                // Answers whose DATA a window update let out (or whose stream the client reset) wait no more. A frame
                // that opens a window delivers no request, so no answer starts waiting in the same call.
                for _ in 0..<max(0, waiting - http2.answersWaitingForWindow) {
                    machine.answerWentOut(now: context.eventLoop.now)
                }
            }
        } catch {
            connectionFailed(error, context: context)
        }
        writeOutput()
    }

    private func handle(_ event: HTTP2ServerConnection.Event, context: ChannelHandlerContext) {
        switch event {
        case .request(let id, let fields, let endStream):
            let streamID = HTTP2StreamID(Int(id))
            guard machine.headersReceived(on: streamID) else { return }
            guard RequestHeaderBlock.isWellFormed(fields) else { return reset(id) }
            machine.streamOpened(streamID)
            var stream = OpenStream(headers: fields, body: context.channel.allocator.buffer(capacity: 0))
            if let text = fields.first(where: { $0.name == "content-length" })?.value {
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let length = Int(text) else {
                    streams[id] = stream
                    return reset(id)
                }
                stream.declaredLength = length
            }
            update(id, stream, requestEnded: endStream)
        case .trailers(let id, let fields):
            guard let stream = streams[id] else { return }
            guard RequestHeaderBlock.isWellFormedTrailers(fields) else { return reset(id) }
            update(id, stream, requestEnded: true)
        case .data(let id, var bytes, let endStream):
            guard var stream = streams[id] else { return }
            stream.bodyLength += bytes.readableBytes
            let room = ProviderRequest.bodyKeepLimit - stream.body.readableBytes
            if room > 0, let kept = bytes.readSlice(length: min(room, bytes.readableBytes)) {
                stream.body.writeImmutableBuffer(kept)
            }
            update(id, stream, requestEnded: endStream)
        case .streamClosed(let id, _):
            if let stream = streams.removeValue(forKey: id) { streamClosed(id, stream) }
        case .goAway:
            break  // the client's: its requests open now still get their answers
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        machine.active(now: context.eventLoop.now)
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connectionFailed(error, context: context)
    }

    /// An error of the whole connection: a broken HTTP/2 rule or a flood (GOAWAY with its code), or TLS. It ends the
    /// connection, never the process.
    private func connectionFailed(_ error: any Error, context: ChannelHandlerContext) {
        let fault = error as? ConnectionFault
        // Closing: requests already handed on keep their answers; the rest are refused (never processed, safe to send
        // again), and the connection closes once nothing is owed.
        guard case .refuseUnsubmittedStreams = machine.connectionError() else {
            // Only the first: writes still queued then fail with IOOnClosedConnection, which is not a reason.
            guard !cutOff else { return }
            cutOff = true
            metrics.providerConnectionClosed(fault?.label ?? String(describing: type(of: error)))
            if let fault {
                http2.goAway(fault.code, debugData: Array(fault.reason.utf8))
                flushIfNeeded()
            }
            return context.close(promise: nil)
        }
        for (id, stream) in streams where !stream.submitted {
            reset(id, .refusedStream)
        }
        flushIfNeeded()
    }

    // MARK: Requests and answers

    /// Ends a stream unanswered: a malformed request with PROTOCOL_ERROR (RFC 9113 §8.1.1); the connection carries on.
    private func reset(_ id: UInt32, _ code: FrameErrorCode = .protocolError) {
        http2.reset(stream: id, code)
        needsFlush = true
        if let stream = streams.removeValue(forKey: id) { streamClosed(id, stream) }
    }

    /// Keeps `stream` as read so far, and hands its request to the processor once it has ended, or as soon as
    /// its body is too large for every push type (answered without reading on).
    private func update(_ id: UInt32, _ stream: OpenStream, requestEnded: Bool) {
        var stream = stream
        let wasSubmitted = stream.submitted
        stream.requestEnded = stream.requestEnded || requestEnded
        let submits = !stream.submitted && (stream.requestEnded || stream.bodyLength > ProviderRequest.bodyKeepLimit)
        stream.submitted = stream.submitted || submits
        // Kept before processing: an answer can come at once, and it finds its stream here.
        streams[id] = stream
        // DATA that does not add up to the declared length makes the request malformed (once answered, it no longer
        // matters).
        if !wasSubmitted, let declared = stream.declaredLength,
            stream.bodyLength > declared || (stream.requestEnded && stream.bodyLength != declared)
        {
            return reset(id)
        }
        guard submits else { return }
        machine.requestSubmitted()
        let request = ProviderRequest(headers: stream.headers, body: stream.body, bodyLength: stream.bodyLength)
        processor.process(request, on: connection) { response in
            self.respond(id, response)
        }
    }

    private func respond(_ id: UInt32, _ response: ProviderResponse) {
        guard !cutOff else { return }  // stalled by a fault rule: nothing more is answered
        switch response.connectionFault {
        case .reset?:
            reset(id, .internalError)
            if !reading { scheduleFlush() }
            return
        case .close?:
            flushIfNeeded()  // what was answered before goes out; then nothing more
            context?.close(promise: nil)
            return
        case .stall?:
            cutOff = true
            return
        case .goAway(let reason, let after)?:
            goAwayCountdown = (reason, after)
        case nil:
            if var countdown = goAwayCountdown {
                countdown.remaining -= 1
                goAwayCountdown = countdown
            }
        }
        answer(id, response)
        if let countdown = goAwayCountdown, countdown.remaining <= 0 {
            goAwayCountdown = nil
            connection.startDraining(countdown.reason)
        }
    }

    private func answer(_ id: UInt32, _ response: ProviderResponse) {
        guard let context, let stream = streams.removeValue(forKey: id) else { return }  // reset meanwhile
        let waiting = http2.answersWaitingForWindow
        http2.respond(stream: id, status: response.status, fields: response.fields, body: response.body(allocator: context.channel.allocator))
        if http2.answersWaitingForWindow > waiting {
            machine.answerWaits(now: context.eventLoop.now)  // its DATA waits for the client's window
            armTimer()
        }
        // Written with the other answers of this turn, by the flush (or before a close the stream's end may cause).
        streamClosed(id, stream)
        if !reading { scheduleFlush() }
    }

    private func streamClosed(_ id: UInt32, _ stream: OpenStream) {
        run(machine.streamClosed(HTTP2StreamID(Int(id)), wasSubmitted: stream.submitted))
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
            http2.changeMaximumConcurrentStreams(to: UInt32(maximumConcurrentStreams))
            flushIfNeeded()
        case .sendGoAway(let lastStreamID, let reason, let thenClose):
            http2.goAway(lastStream: UInt32(Int(lastStreamID)), .noError, debugData: Array(#"{"reason":"\#(reason.rawValue)"}"#.utf8))
            flushIfNeeded()
            if thenClose { context.close(promise: nil) }
        case .close:
            flushIfNeeded()
            context.close(promise: nil)
        case .count(let reason):
            metrics.providerConnectionClosed(reason)
        case .refuseUnsubmittedStreams:
            for (id, stream) in streams where !stream.submitted {
                reset(id, .refusedStream)
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

    /// Hands what the HTTP/2 layer has to send to the channel, in one buffer; ``flushIfNeeded()`` does it too.
    private func writeOutput() {
        guard let context, http2.output.readableBytes > 0 else { return }
        let bytes = http2.output
        http2.output = context.channel.allocator.buffer(capacity: 1024)
        context.write(wrapOutboundOut(bytes), promise: nil)
        needsFlush = true
    }

    private func flushIfNeeded() {
        writeOutput()
        guard needsFlush, let context else { return }
        needsFlush = false
        machine.active(now: context.eventLoop.now)
        context.flush()
    }
}
