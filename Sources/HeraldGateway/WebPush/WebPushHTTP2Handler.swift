import Foundation
import HeraldHTTP2
import HeraldWire
import Logging
import NIOCore

/// One HTTP/2 connection of the Web Push port, on Herald's own HTTP/2 layer: every complete request goes to
/// ``WebPushService`` at once (a connection's messages commit together, as on the provider port), and the answers that
/// come back in one event-loop turn go out in one write. A connection idle for `idle` gets GOAWAY `IdleTimeout`.
final class WebPushHTTP2Handler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct PendingRequest {
        var fields: [(name: String, value: String)]
        var body = ByteBuffer()
    }

    private let service: WebPushService
    private let idle: TimeAmount
    private let logger: Logger
    private var reader = FrameReader()
    private var http2: HTTP2ServerConnection
    private var pending: [UInt32: PendingRequest] = [:]
    private var lastTraffic = NIODeadline.now()
    private var timer: Scheduled<Void>?
    private var flushScheduled = false
    private var closed = false

    init(service: WebPushService, idle: TimeAmount, logger: Logger) {
        self.service = service
        self.idle = idle
        self.logger = logger
        var settings = HTTP2ServerConnection.Settings()
        settings.maximumConcurrentStreams = 1000
        http2 = HTTP2ServerConnection(settings: settings)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        flushOutput(context: context)
        arm(after: idle, context: context)
    }

    private func arm(after delay: TimeAmount, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = bound.value
            handler.checkIdle(context: context)
        }
    }

    private func checkIdle(context: ChannelHandlerContext) {
        guard !closed else { return }
        let idleFor = NIODeadline.now() - lastTraffic
        guard idleFor >= idle else { return arm(after: idle - idleFor, context: context) }
        closed = true
        http2.goAway(.noError, debugData: Array(#"{"reason":"IdleTimeout"}"#.utf8))
        flushOutput(context: context)
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        var bytes = unwrapInboundIn(data)
        reader.append(&bytes)
        lastTraffic = .now()
        do {
            while let (header, payload) = try reader.next() {
                guard let event = try http2.receive(header, payload, now: .now()) else { continue }
                handle(event, context: context)
            }
        } catch {
            closed = true
            logger.debug("web push connection broke HTTP/2", metadata: ["reason": "\(error.reason)"])
            http2.goAway(error.code, debugData: Array(error.reason.utf8))
            flushOutput(context: context)
            context.close(promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushOutput(context: context)
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        timer?.cancel()
        context.fireChannelInactive()
    }

    private func handle(_ event: HTTP2ServerConnection.Event, context: ChannelHandlerContext) {
        switch event {
        case .request(let stream, let fields, let endStream):
            pending[stream] = PendingRequest(fields: fields)
            if endStream { dispatch(stream, context: context) }
        case .data(let stream, var bytes, let endStream):
            guard var request = pending[stream] else { return }
            // One byte past the limit is enough for the service to answer 413; the rest is not kept.
            let room = WebPushHead.maximumBodySize + 1 - request.body.readableBytes
            if bytes.readableBytes > room {
                if room > 0, let slice = bytes.readSlice(length: room) { request.body.writeImmutableBuffer(slice) }
            } else {
                request.body.writeBuffer(&bytes)
            }
            pending[stream] = request
            if endStream { dispatch(stream, context: context) }
        case .trailers(let stream, _):
            dispatch(stream, context: context)
        case .streamClosed(let stream, _):
            pending[stream] = nil
        case .goAway:
            break
        }
    }

    private func dispatch(_ stream: UInt32, context: ChannelHandlerContext) {
        guard let request = pending.removeValue(forKey: stream) else { return }
        var method = "", path = "", authority = ""
        var headers: [(name: String, value: String)] = []
        for (name, value) in request.fields {
            switch name {
            case ":method": method = value
            case ":path": path = value
            case ":authority": authority = value
            case _ where name.hasPrefix(":"): break
            case "host" where authority.isEmpty: authority = value
            default: headers.append((name, value))
            }
        }
        let call = WebPushService.Request(
            method: method, path: path, authority: authority, headers: headers, body: Data(request.body.readableBytesView))
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        service.handle(call, on: context.eventLoop) { response in
            let (handler, context) = bound.value
            handler.answer(stream, response, context: context)
        }
    }

    private func answer(_ stream: UInt32, _ response: WebPushService.Response, context: ChannelHandlerContext) {
        guard !closed else { return }
        http2.respond(stream: stream, status: response.status, fields: response.headers, body: response.body.map { ByteBuffer(bytes: $0) })
        // Answers completed in the same turn (a commit's) share one write.
        guard !flushScheduled else { return }
        flushScheduled = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = bound.value
            handler.flushScheduled = false
            handler.flushOutput(context: context)
        }
    }

    private func flushOutput(context: ChannelHandlerContext) {
        guard http2.output.readableBytes > 0 else { return }
        lastTraffic = .now()
        context.writeAndFlush(wrapOutboundOut(http2.output), promise: nil)
        http2.output.clear()
    }
}
