import Foundation
import HeraldHTTP2
import HeraldWire
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The channel management API's listener (`--channels-port`, 2195 as Apple's sandbox management host): HTTP/2 over
/// TLS (ALPN h2, the provider port's certificate) or h2c with prior knowledge, on Herald's own HTTP/2 layer.
final class ChannelManagementServer: Service, Sendable {
    private let serverChannel: any Channel
    private let connections: OpenChannels
    private let logger: Logger
    /// The port the listener is bound to.
    let port: Int

    private init(serverChannel: any Channel, connections: OpenChannels, logger: Logger) {
        self.serverChannel = serverChannel
        self.connections = connections
        self.logger = logger
        port = serverChannel.localAddress?.port ?? 0
    }

    static func bind(
        host: String, port: Int, tls: NIOSSLContext?, api: ChannelManagementAPI, timeouts: ChannelManagementHandler.Timeouts,
        group: any EventLoopGroup, logger: Logger
    ) async throws -> ChannelManagementServer {
        let connections = OpenChannels()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    try sync.addHandler(ChannelManagementHandler(api: api, timeouts: timeouts, logger: logger))
                    connections.add(channel)
                }
            }
            .bind(host: host, port: port)
            .get()
        return ChannelManagementServer(serverChannel: channel, connections: connections, logger: logger)
    }

    /// Serves until graceful shutdown, then stops accepting and closes the open connections (a management call is
    /// short; one cut off is safe to repeat on the next gateway).
    func run() async throws {
        try? await gracefulShutdown()
        try? await serverChannel.close()
        for connection in connections.all { try? await connection.close() }
    }
}

/// One connection of the channel management API: frames in, each stream's request gathered and handed to
/// ``ChannelManagementAPI``, its answer written when it comes. A low-volume API: no batching, one write per answer.
/// As on the provider port, a connection that has sent no frame `handshake` after its accept is closed, and one with
/// no traffic either way for `idle` gets GOAWAY `IdleTimeout`.
final class ChannelManagementHandler: ChannelInboundHandler {
    struct Timeouts {
        var handshake: TimeAmount
        var idle: TimeAmount
    }

    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The largest request body taken; a channel's creation is a few dozen bytes.
    private static let maximumBody = 4096

    private struct PendingRequest {
        var fields: [(name: String, value: String)]
        var body = ByteBuffer()
    }

    private let api: ChannelManagementAPI
    private let timeouts: Timeouts
    private let session = ChannelManagementAPI.Session()
    private var lastTraffic = NIODeadline.now()
    private var sawFrame = false
    private var timer: Scheduled<Void>?
    private let logger: Logger
    private var reader = FrameReader()
    private var http2: HTTP2ServerConnection
    private var pending: [UInt32: PendingRequest] = [:]
    /// Complete requests waiting for the one before them: a connection's calls run one at a time, in the order they
    /// arrived, so its provider tokens are checked in that order (as on the provider port).
    private var ready = CircularBuffer<(stream: UInt32, call: ChannelManagementAPI.Request)>()
    private var running = false
    private var closed = false

    init(api: ChannelManagementAPI, timeouts: Timeouts, logger: Logger) {
        self.api = api
        self.timeouts = timeouts
        self.logger = logger
        var settings = HTTP2ServerConnection.Settings()
        settings.maximumConcurrentStreams = 100
        http2 = HTTP2ServerConnection(settings: settings)
    }

    func channelActive(context: ChannelHandlerContext) {
        lastTraffic = .now()
        flushOutput(context: context)
        arm(after: timeouts.handshake, context: context)
        context.fireChannelActive()
    }

    /// Checks the connection's deadlines `delay` from now: the first frame's, then the idle one's.
    private func arm(after delay: TimeAmount, context: ChannelHandlerContext) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) { handler.value.check(context: bound.value) }
    }

    private func check(context: ChannelHandlerContext) {
        guard !closed else { return }
        guard sawFrame else {
            closed = true
            return context.close(promise: nil)  // no HTTP/2 yet: nothing to say GOAWAY in
        }
        let idleFor = NIODeadline.now() - lastTraffic
        guard idleFor >= timeouts.idle else { return arm(after: timeouts.idle - idleFor, context: context) }
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
                if !sawFrame {
                    sawFrame = true
                    timer?.cancel()
                    arm(after: timeouts.idle, context: context)
                }
                guard let event = try http2.receive(header, payload, now: .now()) else { continue }
                handle(event, context: context)
            }
        } catch {
            closed = true
            logger.debug("channel management connection broke HTTP/2", metadata: ["reason": "\(error.reason)"])
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
            guard request.body.readableBytes + bytes.readableBytes <= Self.maximumBody else {
                pending[stream] = nil
                answer(
                    stream,
                    ChannelManagementAPI.Response(
                        status: 413,
                        headers: [
                            ("apns-request-id", APNsID.format(BroadcastHead.requestedRequestID(in: request.fields) ?? APNsID.generate())),
                            ("content-type", "application/json"),
                        ],
                        body: Data(#"{"reason":"PayloadTooLarge"}"#.utf8)),
                    context: context)
                return
            }
            request.body.writeBuffer(&bytes)
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
        var method = "", path = ""
        var headers: [(name: String, value: String)] = []
        for (name, value) in request.fields {
            switch name {
            case ":method": method = value
            case ":path": path = value
            case _ where name.hasPrefix(":"): break
            default: headers.append((name, value))
            }
        }
        let certificate = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate
            .flatMap { try? ClientIdentity(derEncoded: $0.toDERBytes()) }
        let call = ChannelManagementAPI.Request(
            method: method, path: path, headers: headers, body: Data(request.body.readableBytesView), certificate: certificate ?? nil)
        ready.append((stream, call))
        runNext(context: context)
    }

    /// Hands the oldest waiting request to the API, unless one is under way.
    private func runNext(context: ChannelHandlerContext) {
        guard !running, !closed, let (stream, call) = ready.popFirst() else { return }
        running = true
        let api = self.api
        let session = self.session
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let contextBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        Task {
            let response = await api.handle(call, session: session)
            eventLoop.execute {
                handler.value.running = false
                handler.value.answer(stream, response, context: contextBound.value)
                handler.value.runNext(context: contextBound.value)
            }
        }
    }

    private func answer(_ stream: UInt32, _ response: ChannelManagementAPI.Response, context: ChannelHandlerContext) {
        guard !closed else { return }
        let body = response.body.map { ByteBuffer(bytes: $0) }
        http2.respond(stream: stream, status: response.status, fields: response.headers, body: body)
        flushOutput(context: context)
    }

    private func flushOutput(context: ChannelHandlerContext) {
        guard http2.output.readableBytes > 0 else { return }
        lastTraffic = .now()  // traffic both ways keeps a connection from being idle
        context.writeAndFlush(wrapOutboundOut(http2.output), promise: nil)
        http2.output.clear()
    }
}
