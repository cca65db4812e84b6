import Foundation
import HeraldWire
import Logging
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOSSL
import NIOTLS
import Synchronization

/// Speaks APNs' side of one HTTP/2 connection at the frame level: allocates stream ids, keeps within the
/// server's SETTINGS_MAX_CONCURRENT_STREAMS (and to one stream until a request has been accepted), queues
/// what does not fit, matches answers to requests, honours GOAWAY, enforces deadlines and pings when idle.
///
/// No child channel per request: a request is two frames out and one or two frames in. Lives on the
/// connection's event loop.
final class APNsStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

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
    private var inFlight: [HTTP2StreamID: InFlight] = [:]
    private var queue = CircularBuffer<StreamRequest>()
    private var flushScheduled = false
    private var reading = false
    private var unacknowledgedBytes = 0
    private var timer: RepeatedTask?
    private var lastError: (any Error)?

    /// Largest connection-level receive window asked of the server.
    private static let connectionWindow = 1 << 20

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
            headers.add(name: "authorization", value: authorization.value, indexing: .indexable)
        }
        inFlight[streamID] = InFlight(promise: request.promise, deadline: request.deadline)
        let written = context.eventLoop.makePromise(of: Void.self)
        let endStream = request.body.readableBytes == 0
        context.write(
            wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: endStream)))), promise: written)
        if !endStream {
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(request.body), endStream: true)))), promise: nil
            )
        }
        written.futureResult.assumeIsolated().whenFailure { [self] error in
            // The HTTP/2 layer refused the stream; the server never saw it.
            guard let stream = inFlight.removeValue(forKey: streamID) else { return }
            stream.promise.fail(StreamFailure(kind: .notProcessed, detail: "the request could not be written", underlying: error))
            updateCapacity()
        }
        scheduleFlush(context: context)
    }

    private func scheduleFlush(context: ChannelHandlerContext) {
        guard !reading, !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let handler = loopBound.value
            handler.flushScheduled = false
            handler.context?.flush()
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
        reading = true
        let frame = unwrapInboundIn(data)
        state.heard(at: context.eventLoop.now)
        if frame.streamID == .rootStream {
            readConnectionFrame(frame.payload, context: context)
        } else {
            readStreamFrame(frame.payload, streamID: frame.streamID, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        drainQueue()
        context.flush()
        context.fireChannelReadComplete()
    }

    private func readConnectionFrame(_ payload: HTTP2Frame.FramePayload, context: ChannelHandlerContext) {
        switch payload {
        case .settings(.settings(let settings)):
            var announced: Int?
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                announced = setting.value
            }
            if state.settingsReceived(maximumConcurrentStreams: announced) {
                let increment = Self.connectionWindow - 65_535
                context.write(
                    wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))), promise: nil)
            }
            updateCapacity()
        case .ping(_, ack: true):
            state.pingAcknowledged()
        case .goAway(let lastStreamID, let code, let opaqueData):
            let reason = opaqueData.flatMap { try? JSONValue.parse(Data($0.readableBytesView)) }?["reason"]?.stringValue
            let startsDraining = state.goAwayReceived(reason: reason.map(APNsReason.init(rawValue:)))
            logger.info("APNs server sent GOAWAY", metadata: ["reason": "\(reason ?? "none")", "code": "\(code)"])
            for (id, stream) in inFlight where id > lastStreamID {
                inFlight[id] = nil
                stream.promise.fail(
                    StreamFailure(
                        kind: .notProcessed, detail: "the server closed the connection (GOAWAY \(reason ?? "\(code)")) before processing the request",
                        goAwayReason: state.goAwayReason
                    ))
            }
            if startsDraining { drained(context: context) } else if inFlight.isEmpty { context.close(promise: nil) }
        default:
            break
        }
    }

    private func readStreamFrame(_ payload: HTTP2Frame.FramePayload, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        switch payload {
        case .headers(let headers):
            guard var stream = inFlight[streamID] else { return }
            for header in headers.headers {
                switch header.name {
                case ":status": stream.status = Int(header.value)
                case "apns-id": stream.apnsID = header.value
                case "apns-unique-id": stream.uniqueID = header.value
                default: break
                }
            }
            if let status = stream.status, status < 200 {
                stream.status = nil  // 1xx: the real answer follows.
            }
            inFlight[streamID] = stream
            if headers.endStream { complete(streamID) }
        case .data(let data):
            acknowledge(data, context: context)
            guard var stream = inFlight[streamID] else { return }
            if case .byteBuffer(var buffer) = data.data {
                if stream.body == nil {
                    stream.body = buffer
                } else {
                    stream.body!.writeBuffer(&buffer)
                }
            }
            inFlight[streamID] = stream
            if data.endStream { complete(streamID) }
        case .rstStream(let code):
            guard let stream = inFlight[streamID] else { return }
            if code == .noError, stream.status != nil {
                complete(streamID)  // a complete answer; the server needs no more of the body (RFC 9113 §8.1).
                return
            }
            inFlight[streamID] = nil
            let kind: StreamFailure.Kind = code == .refusedStream ? .notProcessed : .reset
            stream.promise.fail(StreamFailure(kind: kind, detail: "the server reset the stream (\(code))"))
            afterStreamEnded(context: context)
        default:
            break
        }
    }

    /// Gives the server back the connection window its DATA used.
    private func acknowledge(_ data: HTTP2Frame.FramePayload.Data, context: ChannelHandlerContext) {
        unacknowledgedBytes += data.data.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0)
        if unacknowledgedBytes >= Self.connectionWindow / 2 {
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: unacknowledgedBytes))), promise: nil)
            unacknowledgedBytes = 0
        }
    }

    private func complete(_ streamID: HTTP2StreamID) {
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
            context.writeAndFlush(
                wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: .rootStream, errorCode: .noError, opaqueData: nil))),
                promise: nil)
        }
        startDraining(context: context, detail: "the client is shutting down")
    }

    private func tick() {
        guard let context else { return }
        let now = context.eventLoop.now  // the loop's clock: virtual in tests
        var expired: [HTTP2StreamID] = []
        for (id, stream) in inFlight where stream.deadline <= now {
            expired.append(id)
        }
        for id in expired {
            guard let stream = inFlight.removeValue(forKey: id) else { continue }
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .rstStream(.cancel))), promise: nil)
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
            context.flush()
        }
        checkIdle(now: now, context: context)
    }

    private func checkIdle(now: NIODeadline, context: ChannelHandlerContext) {
        switch state.tick(now: now, idle: inFlight.isEmpty && queue.isEmpty) {
        case .fine:
            break
        case .sendPing:
            let data = HTTP2PingData(withInteger: UInt64(now.uptimeNanoseconds))
            context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .ping(data, ack: false))), promise: nil)
        case .unanswered:
            logger.info("APNs connection did not answer a ping; closing it")
            lastError = StreamFailure(kind: .connectionClosed, detail: "the server did not answer a ping")
            context.close(promise: nil)
        }
    }
}
