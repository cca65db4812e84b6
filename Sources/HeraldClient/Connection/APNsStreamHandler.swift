import Foundation
import HeraldHTTP2
import HeraldWire
import Logging
import NIOCore
import NIOSSL
import NIOTLS
import Synchronization

/// Speaks APNs' side of one HTTP/2 connection: allocates stream ids, keeps within the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS (and to one stream until a request has been accepted), queues what does not
/// fit, matches answers to requests, honours GOAWAY, enforces deadlines and pings when idle.
///
/// Bytes in and out: the frames and their rules are ``HTTP2ClientConnection``'s, and the requests of one event-loop
/// turn go out in one write. Lives on the connection's event loop.
final class APNsStreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Timing {
        var pingInterval: TimeAmount
        var pingTimeout: TimeAmount
        var resolution: TimeAmount
    }

    private struct InFlight {
        var promise: EventLoopPromise<StreamResponse>
        var deadline: NIODeadline
        var status: Int?
        var apnsID: String?
        var uniqueID: String?
        var body: ByteBuffer?
    }

    private let gauge: ConnectionGauge
    private let tokens: ProviderTokenCache?
    private var binding = TokenBinding()
    /// The `authorization` value of the bound JWT, built once per token rather than once per request.
    private var authorization = (jwt: "", value: "")
    private let timing: Timing
    private let logger: Logger
    let ready: EventLoopPromise<Void>
    private let usesTLS: Bool

    private var context: ChannelHandlerContext?
    /// The connection's limits, draining and liveness (``StateMachine``).
    private var state: StateMachine
    private var http2 = HTTP2ClientConnection()
    private var reader = FrameReader(readsPreface: false)
    private var inFlight: [UInt32: InFlight] = [:]
    private var queue = CircularBuffer<StreamRequest>()
    private var flushScheduled = false
    private var reading = false
    /// A protocol error of the server's ended the connection: nothing more is read.
    private var cutOff = false
    private var timer: RepeatedTask?
    private var lastError: (any Error)?

    init(gauge: ConnectionGauge, tokens: ProviderTokenCache?, timing: Timing, usesTLS: Bool, ready: EventLoopPromise<Void>, logger: Logger) {
        self.gauge = gauge
        self.tokens = tokens
        self.timing = timing
        state = StateMachine(pingInterval: timing.pingInterval, pingTimeout: timing.pingTimeout, now: .now())
        self.usesTLS = usesTLS
        self.ready = ready
        self.logger = logger
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { becameActive(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        becameActive(context: context)
        context.fireChannelActive()
    }

    private func becameActive(context: ChannelHandlerContext) {
        guard timer == nil else { return }
        state.heard(at: context.eventLoop.now)
        writeOutput(context: context)
        context.flush()
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: timing.resolution, delay: timing.resolution) { _ in
            loopBound.value.tick()
        }
        if !usesTLS { ready.succeed() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Only the end of the TLS handshake matters here. HTTP/2 raises five events per request, and matching a
        // pattern against `Any` is a dynamic cast even when it fails, so the event's type is compared first.
        if type(of: event) == TLSUserEvent.self, case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            if negotiated == "h2" || negotiated == nil {
                ready.succeed()
            } else {
                ready.fail(StreamFailure(kind: .notProcessed, detail: "the server does not speak HTTP/2 (ALPN chose \(negotiated ?? "nothing"))"))
                context.close(promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        lastError = error
        ready.fail(error)
        logger.debug("APNs connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        gauge.usable.store(false, ordering: .relaxed)
        ready.fail(lastError ?? StreamFailure(kind: .notProcessed, detail: "the connection closed during its handshake"))
        let reason = state.goAwayReason
        let cause = lastError
        for (_, stream) in inFlight {
            stream.promise.fail(
                StreamFailure(
                    kind: .connectionClosed,
                    detail: "the connection closed before an answer came" + (reason.map { " (GOAWAY \($0))" } ?? ""),
                    goAwayReason: reason, underlying: cause
                ))
        }
        inFlight.removeAll()
        failQueue(detail: "the connection closed before the request was sent", underlying: cause)
        self.context = nil
        context.fireChannelInactive()
    }

    // MARK: Sending

    /// Sends `request` now if a stream is free, else queues it. Called on the event loop.
    func submit(_ request: StreamRequest) {
        guard let context, !state.isDraining, gauge.usable.load(ordering: .relaxed) else {
            request.promise.fail(StreamFailure(kind: .notProcessed, detail: "the connection is closing", goAwayReason: state.goAwayReason))
            return
        }
        if queue.isEmpty && state.canStart(inFlight: inFlight.count) {
            start(request, context: context)
        } else {
            queue.append(request)
        }
    }

    private func start(_ request: StreamRequest, context: ChannelHandlerContext) {
        guard let streamID = state.nextStream() else {
            request.promise.fail(StreamFailure(kind: .notProcessed, detail: "the connection used up its stream ids"))
            startDraining(context: context)
            return
        }
        var headers = request.headers
        if let tokens {
            let jwt = binding.jwt(from: tokens)
            if jwt != authorization.jwt { authorization = (jwt, "bearer " + jwt) }
            headers.append(("authorization", authorization.value))
        }
        inFlight[streamID] = InFlight(promise: request.promise, deadline: request.deadline)
        http2.request(stream: streamID, fields: headers, body: request.body)
        scheduleFlush(context: context)
    }

    /// Writes what the connection has to send (without flushing it).
    private func writeOutput(context: ChannelHandlerContext) {
        guard http2.output.readableBytes > 0 else { return }
        context.write(wrapOutboundOut(http2.output), promise: nil)
        http2.output.clear()
    }

    private func scheduleFlush(context: ChannelHandlerContext) {
        guard !reading, !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBound.value
            handler.flushScheduled = false
            guard let context = handler.context else { return }
            handler.writeOutput(context: context)
            context.flush()
        }
    }

    private func drainQueue() {
        guard let context else { return }
        while !queue.isEmpty && state.canStart(inFlight: inFlight.count) {
            start(queue.removeFirst(), context: context)
        }
    }

    private func failQueue(detail: String, underlying: (any Error)? = nil) {
        while let request = queue.popFirst() {
            request.promise.fail(StreamFailure(kind: .notProcessed, detail: detail, goAwayReason: state.goAwayReason, underlying: underlying))
        }
    }

    private func updateCapacity() {
        gauge.capacity.store(max(1, state.limit), ordering: .relaxed)
    }

    // MARK: Receiving

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !cutOff else { return }
        reading = true
        var bytes = unwrapInboundIn(data)
        reader.append(&bytes)
        state.heard(at: context.eventLoop.now)
        do {
            while let (header, payload) = try reader.next() {
                guard let event = try http2.receive(header, payload) else { continue }
                handle(event, context: context)
                if cutOff { return }
            }
        } catch {
            fault(error, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        drainQueue()
        writeOutput(context: context)
        context.flush()
        context.fireChannelReadComplete()
    }

    /// The server broke the protocol: GOAWAY with the fault's code, and the connection closes.
    private func fault(_ fault: ConnectionFault, context: ChannelHandlerContext) {
        cutOff = true
        logger.info("APNs server broke HTTP/2; closing the connection", metadata: ["reason": "\(fault.reason)"])
        lastError = StreamFailure(kind: .connectionClosed, detail: "the server broke HTTP/2: \(fault.reason)")
        FrameWriter.goAway(lastStream: 0, code: fault.code, debugData: Array(fault.reason.utf8), into: &http2.output)
        writeOutput(context: context)
        context.flush()
        context.close(promise: nil)
    }

    private func handle(_ event: HTTP2ClientConnection.Event, context: ChannelHandlerContext) {
        switch event {
        case .settings(let maximumConcurrentStreams, _):
            state.settingsReceived(maximumConcurrentStreams: maximumConcurrentStreams)
            updateCapacity()
        case .pingAcknowledged:
            state.pingAcknowledged()
        case .goAway(let lastStream, let code, let debugData):
            let reason = (try? JSONValue.parse(Data(debugData.readableBytesView)))?["reason"]?.stringValue
            let startsDraining = state.goAwayReceived(reason: reason.map(APNsReason.init(rawValue:)))
            let codeName = FrameErrorCode(rawValue: code).map { "\($0)" } ?? "0x\(String(code, radix: 16))"
            logger.info("APNs server sent GOAWAY", metadata: ["reason": "\(reason ?? "none")", "code": "\(codeName)"])
            for (id, stream) in inFlight where id > lastStream {
                inFlight[id] = nil
                stream.promise.fail(
                    StreamFailure(
                        kind: .notProcessed, detail: "the server closed the connection (GOAWAY \(reason ?? codeName)) before processing the request",
                        goAwayReason: state.goAwayReason
                    ))
            }
            if startsDraining { drained(context: context) } else if inFlight.isEmpty { context.close(promise: nil) }
        case .headers(let streamID, let fields, let endStream):
            guard var stream = inFlight[streamID] else { return }
            for (name, value) in fields {
                switch name {
                case ":status": stream.status = Int(value)
                case "apns-id", "apns-request-id": stream.apnsID = value  // a broadcast's answer names its request
                case "apns-unique-id": stream.uniqueID = value
                default: break
                }
            }
            if let status = stream.status, status < 200 {
                stream.status = nil  // 1xx: the real answer follows.
            }
            inFlight[streamID] = stream
            if endStream { complete(streamID) }
        case .data(let streamID, var bytes, let endStream):
            guard var stream = inFlight[streamID] else { return }
            if stream.body == nil {
                stream.body = bytes
            } else {
                stream.body!.writeBuffer(&bytes)
            }
            inFlight[streamID] = stream
            if endStream { complete(streamID) }
        case .reset(let streamID, let code):
            guard let stream = inFlight[streamID] else { return }
            if code == FrameErrorCode.noError.rawValue, stream.status != nil {
                complete(streamID)  // a complete answer; the server needs no more of the body (RFC 9113 §8.1).
                return
            }
            inFlight[streamID] = nil
            let kind: StreamFailure.Kind = code == FrameErrorCode.refusedStream.rawValue ? .notProcessed : .reset
            let codeName = FrameErrorCode(rawValue: code).map { "\($0)" } ?? "error code 0x\(String(code, radix: 16))"
            stream.promise.fail(StreamFailure(kind: kind, detail: "the server reset the stream (\(codeName))"))
            afterStreamEnded(context: context)
        case .headersTooLarge(let streamID):
            guard let stream = inFlight.removeValue(forKey: streamID) else { return }
            stream.promise.fail(
                StreamFailure(kind: .reset, detail: "the answer's headers exceed the \(HTTP2ClientConnection.maximumHeaderListSize) bytes allowed"))
            afterStreamEnded(context: context)
        }
    }

    private func complete(_ streamID: UInt32) {
        guard let stream = inFlight.removeValue(forKey: streamID) else { return }
        guard let status = stream.status else {
            stream.promise.fail(StreamFailure(kind: .reset, detail: "the server ended the stream without a status"))
            return
        }
        state.answered(status: status)
        updateCapacity()
        stream.promise.succeed(
            StreamResponse(
                status: status, apnsID: stream.apnsID, uniqueID: stream.uniqueID, body: stream.body ?? ByteBuffer()
            ))
        if let context { afterStreamEnded(context: context) }
    }

    private func afterStreamEnded(context: ChannelHandlerContext) {
        if state.isDraining {
            if state.shouldClose(inFlight: inFlight.count) { context.close(promise: nil) }
        } else if !reading {
            drainQueue()
            scheduleFlush(context: context)
        }
    }

    // MARK: Closing, deadlines, pings

    /// No new requests: the queue fails, and the connection closes once nothing is in flight.
    private func startDraining(context: ChannelHandlerContext, detail: String? = nil) {
        guard state.startDraining() else { return }
        drained(context: context, detail: detail)
    }

    /// What starting to drain does, once.
    private func drained(context: ChannelHandlerContext, detail: String? = nil) {
        gauge.usable.store(false, ordering: .relaxed)
        failQueue(detail: detail ?? "the server closed the connection (GOAWAY \(state.goAwayReason?.rawValue ?? "")) before the request was sent")
        if state.shouldClose(inFlight: inFlight.count) { context.close(promise: nil) }
    }

    /// Closes the connection once its requests are answered (client shutdown).
    func close() {
        guard let context else { return }
        if !state.isDraining {
            http2.goAway()
            writeOutput(context: context)
            context.flush()
        }
        startDraining(context: context, detail: "the client is shutting down")
    }

    private func tick() {
        guard let context else { return }
        let now = context.eventLoop.now  // the loop's clock: virtual in tests
        var expired: [UInt32] = []
        for (id, stream) in inFlight where stream.deadline <= now {
            expired.append(id)
        }
        for id in expired {
            guard let stream = inFlight.removeValue(forKey: id) else { continue }
            http2.cancel(stream: id)
            stream.promise.fail(StreamFailure(kind: .timeout, detail: "no answer before the deadline"))
        }
        if queue.contains(where: { $0.deadline <= now }) {
            var kept = CircularBuffer<StreamRequest>(initialCapacity: queue.count)
            while let request = queue.popFirst() {
                if request.deadline <= now {
                    request.promise.fail(StreamFailure(kind: .timeout, detail: "no stream became free before the deadline"))
                } else {
                    kept.append(request)
                }
            }
            queue = kept
        }
        if !expired.isEmpty {
            afterStreamEnded(context: context)
            writeOutput(context: context)
            context.flush()
        }
        checkIdle(now: now, context: context)
    }

    private func checkIdle(now: NIODeadline, context: ChannelHandlerContext) {
        switch state.tick(now: now, idle: inFlight.isEmpty && queue.isEmpty) {
        case .fine:
            break
        case .sendPing:
            http2.ping(opaque: UInt64(now.uptimeNanoseconds))
            writeOutput(context: context)
            context.flush()
        case .unanswered:
            logger.info("APNs connection did not answer a ping; closing it")
            lastError = StreamFailure(kind: .connectionClosed, detail: "the server did not answer a ping")
            context.close(promise: nil)
        }
    }
}
