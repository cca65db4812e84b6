import HeraldWire
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import ServiceLifecycle
import Synchronization

/// The device port: a WebSocket (over TLS unless the gateway runs `--plaintext`) at
/// ``DeviceLinkMessage/path``; any other request is answered 404.
///
/// Built on swift-nio's handlers directly, so that an idle link holds no task: its cost is the socket,
/// TLS, the pipeline and a ``DeviceLinkHandler``. A connection must finish TLS and the upgrade within
/// `deviceLinkHandshakeTimeout` of being accepted. On graceful shutdown the server stops accepting and
/// closes every link with 1001.
final class DeviceLinkServer: Service, Sendable {
    private let services: DeviceLinkServices
    private let tls: NIOSSLContext?
    private let group: any EventLoopGroup
    private let onListening: @Sendable (Int) -> Void
    private let connections = ChannelTable()

    init(services: DeviceLinkServices, tls: NIOSSLContext?, group: any EventLoopGroup, onListening: @escaping @Sendable (Int) -> Void) {
        self.services = services
        self.tls = tls
        self.group = group
        self.onListening = onListening
    }

    func run() async throws {
        let configuration = services.configuration
        let services = self.services
        let tls = self.tls
        let connections = self.connections
        let serverChannel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // Each connection keeps its last receive buffer (2 KiB by default); device messages are small.
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536))
            .childChannelOption(.allocator, value: DeviceLinkBuffers.allocator)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(channel: channel, services: services, tls: tls)
                    connections.add(channel)
                }
            }
            .bind(host: configuration.host, port: configuration.devicePort)
            .get()
        onListening(serverChannel.localAddress?.port ?? configuration.devicePort)
        try? await gracefulShutdown()
        await shutdown(serverChannel)
    }

    /// Stops accepting, closes every link with 1001 and waits (at most the close timeout) for them to end.
    private func shutdown(_ serverChannel: any Channel) async {
        try? await serverChannel.close()
        let open = connections.all
        services.logger.info("device links shutting down", metadata: ["links": "\(open.count)"])
        for channel in open {
            channel.eventLoop.execute {
                if let handler = try? channel.pipeline.syncOperations.handler(type: DeviceLinkHandler.self) {
                    handler.shutDown()
                } else {
                    channel.close(promise: nil)
                }
            }
        }
        for channel in open {
            try? await channel.closeFuture.get()
        }
    }

    private static func configure(channel: any Channel, services: DeviceLinkServices, tls: NIOSSLContext?) throws {
        let configuration = services.configuration
        let handshakeDeadline = NIODeadline.now() + configuration.deviceLinkHandshakeTimeout
        let sync = channel.pipeline.syncOperations
        if let tls {
            try sync.addHandler(NIOSSLServerHandler(context: tls))
        }
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: configuration.deviceLinkMessageLimit,
            automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                let path = head.uri.prefix { $0 != "?" }
                return channel.eventLoop.makeSucceededFuture(path == DeviceLinkMessage.path ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DeviceLinkHandler(services: services))
                }
            }
        )
        let notFound = NotFoundResponder()
        try sync.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.syncOperations.removeHandler(name: NotFoundResponder.name, promise: nil)
                }
            ),
            withErrorHandling: true
        )
        try sync.addHandler(notFound, name: NotFoundResponder.name)
        try channel.eventLoop.assumeIsolated().scheduleCallback(
            at: handshakeDeadline, handler: HandshakeDeadline(channel: channel, metrics: services.metrics))
    }
}

/// Closes a connection that has not become a device link (TLS and the WebSocket upgrade) in time; once it
/// is one, ``DeviceLinkHandler`` gives it `deviceAuthenticationTimeout` for the hello.
private struct HandshakeDeadline: NIOScheduledCallbackHandler {
    let channel: any Channel
    let metrics: GatewayMetrics

    func handleScheduledCallback(eventLoop: some EventLoop) {
        // Still in the handshake while the HTTP part of the pipeline is there: the upgrade removes it, and so does
        // a close. (Not `isActive`: on a loaded machine the deadline can come before the connection is active.)
        if (try? channel.pipeline.syncOperations.context(name: NotFoundResponder.name)) != nil {
            metrics.deviceLinkClosed(.handshakeTimeout)
            channel.close(promise: nil)
        }
    }
}

/// The open connections of the device port, so shutdown can reach each one.
private final class ChannelTable: Sendable {
    private let table = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        table.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { _ in
            _ = self.table.withLock { $0.removeValue(forKey: id) }
        }
    }

    var all: [any Channel] { table.withLock { Array($0.values) } }
}
