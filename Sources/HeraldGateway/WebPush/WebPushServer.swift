import HeraldHTTP2
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket
import ServiceLifecycle

/// The Web Push port (`--webpush-port`, 8443): subscriptions' endpoints (RFC 8030), over HTTP/2 or HTTP/1.1 as the
/// sender picks, like Apple's push service: ALPN on TLS; with `--plaintext`, h2c with prior knowledge when the first bytes
/// are HTTP/2's preface, HTTP/1.1 otherwise. On HTTP/1.1, a WebSocket upgrade at `/` is Firefox's push connection
/// (``AutopushHandler``), for a Firefox whose `dom.push.serverURL` names this port.
final class WebPushServer: Service, Sendable {
    private let serverChannel: any Channel
    private let connections: OpenChannels
    /// The port the listener is bound to.
    let port: Int

    private init(serverChannel: any Channel, connections: OpenChannels) {
        self.serverChannel = serverChannel
        self.connections = connections
        port = serverChannel.localAddress?.port ?? 0
    }

    static func bind(
        host: String, port: Int, tls: NIOSSLContext?, service: WebPushService, browsers: DeviceLinkServices, handshake: TimeAmount,
        idle: TimeAmount, group: any EventLoopGroup, logger: Logger
    ) async throws -> WebPushServer {
        let connections = OpenChannels()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(WebPushConnectionDeadlines(handshake: handshake, idle: idle))
                    let protocols = WebPushProtocols(service: service, browsers: browsers, usesTLS: tls != nil, idle: idle, logger: logger)
                    if let tls {
                        try sync.addHandler(NIOSSLServerHandler(context: tls))
                        try sync.addHandler(
                            ApplicationProtocolNegotiationHandler { result, channel in
                                channel.eventLoop.makeCompletedFuture {
                                    if case .negotiated("h2") = result {
                                        try protocols.addHTTP2(to: channel)
                                    } else {
                                        try protocols.addHTTP1(to: channel)
                                    }
                                }
                            })
                    } else {
                        try sync.addHandler(PrefaceSniffer(protocols: protocols))
                    }
                    connections.add(channel)
                }
            }
            .bind(host: host, port: port)
            .get()
        return WebPushServer(serverChannel: channel, connections: connections)
    }

    /// Serves until graceful shutdown, then stops accepting and closes the open connections (an answered message is
    /// committed; one cut off before its answer is the sender's to send again).
    func run() async throws {
        try? await gracefulShutdown()
        try? await serverChannel.close()
        for connection in connections.all { try? await connection.close() }
    }
}

/// How a connection of the Web Push port is set up once its protocol is known.
private struct WebPushProtocols: Sendable {
    var service: WebPushService
    var browsers: DeviceLinkServices
    var usesTLS: Bool
    var idle: TimeAmount
    var logger: Logger

    func addHTTP2(to channel: any Channel) throws {
        try channel.pipeline.syncOperations.addHandler(WebPushHTTP2Handler(service: service, idle: idle, logger: logger))
    }

    func addHTTP1(to channel: any Channel) throws {
        let sync = channel.pipeline.syncOperations
        let handler = NIOLoopBound(WebPushHTTP1Handler(service: service), eventLoop: channel.eventLoop)
        let browsers = self.browsers
        let scheme = usesTLS ? "https://" : "http://"
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: browsers.configuration.deviceLinkMessageLimit,
            automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                guard head.uri.prefix(while: { $0 != "?" }) == "/" else { return channel.eventLoop.makeSucceededFuture(nil) }
                // Firefox offers the subprotocol push-notification; echoing it is what autopush does.
                var headers = HTTPHeaders()
                if head.headers[canonicalForm: "sec-websocket-protocol"].contains("push-notification") {
                    headers.add(name: "Sec-WebSocket-Protocol", value: "push-notification")
                }
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let origin = scheme + (head.headers.first(name: "host") ?? "localhost")
                    try channel.pipeline.syncOperations.addHandler(AutopushHandler(services: browsers, origin: origin))
                }
            })
        try sync.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.syncOperations.removeHandler(handler.value, promise: nil)
                }
            ),
            withErrorHandling: true)
        try sync.addHandler(handler.value)
    }
}

/// Plaintext: looks at a connection's first bytes, then hands it to HTTP/2 (they are its preface) or HTTP/1.1.
private final class PrefaceSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let protocols: WebPushProtocols
    private var seen = ByteBuffer()

    init(protocols: WebPushProtocols) {
        self.protocols = protocols
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        seen.writeBuffer(&bytes)
        let preface = FrameReader.preface
        let compared = min(seen.readableBytes, preface.count)
        let isHTTP2 = seen.readableBytesView.prefix(compared).elementsEqual(preface.prefix(compared))
        guard !isHTTP2 || compared == preface.count else { return }  // a prefix of the preface so far: wait for more
        do {
            if isHTTP2 { try protocols.addHTTP2(to: context.channel) } else { try protocols.addHTTP1(to: context.channel) }
        } catch {
            return context.close(promise: nil)
        }
        context.fireChannelRead(wrapInboundOut(seen))
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
