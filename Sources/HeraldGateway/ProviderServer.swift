import HeraldWire
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The provider API listener: HTTP/2 over TLS (ALPN h2) or h2c with prior knowledge.
///
/// On graceful shutdown it stops accepting, answers what each connection has open (requests completing from
/// then on get 503 `Shutdown`), sends GOAWAY `Shutdown` and then closes.
final class ProviderServer: Service, Sendable {
    private let configuration: GatewayConfiguration
    private let processor: ProviderRequestProcessor
    private let metrics: GatewayMetrics
    private let logger: Logger
    private let serverChannel: any Channel
    private let connections: ConnectionTable

    /// The port the listener is bound to.
    let port: Int

    private init(
        configuration: GatewayConfiguration,
        processor: ProviderRequestProcessor,
        metrics: GatewayMetrics,
        logger: Logger,
        serverChannel: any Channel,
        connections: ConnectionTable
    ) {
        self.configuration = configuration
        self.processor = processor
        self.metrics = metrics
        self.logger = logger
        self.serverChannel = serverChannel
        self.connections = connections
        port = serverChannel.localAddress?.port ?? configuration.providerPort
    }

    /// Binds the listener; requests are served from then on.
    static func bind(
        configuration: GatewayConfiguration,
        tls: NIOSSLContext?,
        processor: ProviderRequestProcessor,
        metrics: GatewayMetrics,
        group: any EventLoopGroup,
        logger: Logger
    ) async throws -> ProviderServer {
        let connections = ConnectionTable()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = try Self.configure(
                        channel: channel, configuration: configuration, tls: tls, processor: processor, metrics: metrics
                    )
                    connections.add(NIOLoopBound(connection, eventLoop: channel.eventLoop), for: channel)
                }
            }
            .bind(host: configuration.host, port: configuration.providerPort)
            .get()
        return ProviderServer(
            configuration: configuration, processor: processor, metrics: metrics, logger: logger,
            serverChannel: channel, connections: connections
        )
    }

    private static func configure(
        channel: any Channel,
        configuration: GatewayConfiguration,
        tls: NIOSSLContext?,
        processor: ProviderRequestProcessor,
        metrics: GatewayMetrics
    ) throws -> ProviderConnection {
        let sync = channel.pipeline.syncOperations
        if let tls {
            try sync.addHandler(NIOSSLServerHandler(context: tls))
        }
        let connection = ProviderConnection(channel: channel)
        try sync.addHandler(
            ProviderConnectionHandler(
                connection: connection, processor: processor, metrics: metrics, configuration: configuration
            ))
        return connection
    }

    func run() async throws {
        try await gracefulShutdown()
        try await shutdown()
    }

    /// Stops accepting, drains every connection with GOAWAY `Shutdown`, and waits for them to close.
    func shutdown() async throws {
        try? await serverChannel.close()
        let open = connections.all
        for connection in open {
            try? await connection.eventLoop.submit { connection.value.startDraining(.shutdown) }.get()
        }
        logger.info("provider API shutting down", metadata: ["connections": "\(open.count)"])
        // Each connection closes once its open requests are answered, or after the grace period.
        for connection in open {
            try? await connection.eventLoop.flatSubmit { connection.value.channel.closeFuture }.get()
        }
    }
}

/// The open provider connections, so shutdown can reach each one.
private final class ConnectionTable: Sendable {
    private let table = Mutex<[ObjectIdentifier: NIOLoopBound<ProviderConnection>]>([:])

    func add(_ connection: NIOLoopBound<ProviderConnection>, for channel: any Channel) {
        let id = ObjectIdentifier(channel)
        table.withLock { $0[id] = connection }
        channel.closeFuture.whenComplete { _ in
            _ = self.table.withLock { $0.removeValue(forKey: id) }
        }
    }

    var all: [NIOLoopBound<ProviderConnection>] { table.withLock { Array($0.values) } }
}
