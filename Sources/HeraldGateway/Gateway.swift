public import HeraldStore
public import HeraldWire
public import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
public import UnixSignals

/// A running Herald gateway: the provider API, the console and the store writer, as one service group.
///
/// ```swift
/// let gateway = try await Gateway.start(configuration: configuration, store: store, dataDirectory: directory, logger: logger)
/// print("provider API on", gateway.providerPort)
/// try await gateway.run()   // until SIGTERM or SIGINT, then a graceful shutdown
/// ```
public final class Gateway: Sendable {
    /// The provider API port actually bound (useful when configured as 0).
    public let providerPort: Int
    /// The CA clients should trust, when the gateway made its own certificate.
    public let caCertificatePath: String?
    public let metrics: GatewayMetrics
    private let group: ServiceGroup
    private let consolePortPromise: EventLoopPromise<Int>

    private init(
        providerPort: Int,
        caCertificatePath: String?,
        metrics: GatewayMetrics,
        group: ServiceGroup,
        consolePortPromise: EventLoopPromise<Int>
    ) {
        self.providerPort = providerPort
        self.caCertificatePath = caCertificatePath
        self.metrics = metrics
        self.group = group
        self.consolePortPromise = consolePortPromise
    }

    /// Prepares TLS and binds the provider API; the console binds when ``run()`` starts.
    ///
    /// - Parameters:
    ///   - configuration: Ports, environment and limits.
    ///   - store: Where keys, devices and notifications live.
    ///   - dataDirectory: Holds `tls/` (the local CA); required unless the gateway is plaintext with given certificates.
    ///   - clock: Wall-clock time for token age and timestamps.
    ///   - signals: Signals that start a graceful shutdown (none in tests).
    ///   - logger: Where the gateway logs; it never logs tokens, JWTs or payloads.
    public static func start(
        configuration: GatewayConfiguration,
        store: any Store,
        dataDirectory: DataDirectory,
        clock: any WallClock = SystemWallClock(),
        signals: [UnixSignal] = [.sigterm, .sigint],
        logger: Logger
    ) async throws -> Gateway {
        let eventLoopGroup = MultiThreadedEventLoopGroup.singleton
        let metrics = GatewayMetrics()
        let authority = LocalCertificateAuthority(dataDirectory: dataDirectory)
        try dataDirectory.prepare()
        try authority.ensure(hostNames: [configuration.host])
        let tls = configuration.plaintext ? nil : try makeTLSContext(configuration: configuration, authority: authority)

        let writer = NotificationWriter(
            store: store,
            batchLimit: configuration.writeBatchLimit,
            queueLimit: configuration.writeQueueLimit,
            metrics: metrics,
            logger: logger
        )
        let processor = ProviderRequestProcessor(
            configuration: configuration,
            directory: Directory(store: store, timeToLive: configuration.directoryTimeToLive),
            writer: writer,
            clock: clock,
            metrics: metrics,
            logger: logger
        )
        let provider = try await ProviderServer.bind(
            configuration: configuration,
            tls: tls,
            processor: processor,
            metrics: metrics,
            group: eventLoopGroup,
            logger: logger
        )
        let consolePort = eventLoopGroup.any().makePromise(of: Int.self)
        let console = ConsoleServer.makeApplication(
            configuration: configuration,
            metrics: metrics,
            group: eventLoopGroup,
            logger: logger,
            onListening: { consolePort.succeed($0) }
        )
        // Services stop in reverse order: the provider API drains first, the writer commits last.
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: StoreMaintenance(store: store, interval: .milliseconds(200), logger: logger)),
                    .init(service: writer), .init(service: console), .init(service: provider),
                ],
                gracefulShutdownSignals: signals,
                logger: logger
            )
        )
        logger.info("provider API listening", metadata: [
            "port": "\(provider.port)", "tls": "\(tls != nil)", "environment": "\(configuration.environment)",
        ])
        return Gateway(
            providerPort: provider.port,
            caCertificatePath: configuration.tlsCertificatePath == nil ? authority.caCertificatePath : nil,
            metrics: metrics,
            group: group,
            consolePortPromise: consolePort
        )
    }

    private static func makeTLSContext(
        configuration: GatewayConfiguration,
        authority: LocalCertificateAuthority
    ) throws -> NIOSSLContext {
        let certificatePath = configuration.tlsCertificatePath ?? authority.serverCertificatePath
        let keyPath = configuration.tlsKeyPath ?? authority.serverKeyPath
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: keyPath, format: .pem))
        )
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        // Certificate-based provider authentication: a client certificate is optional, but one that is
        // presented must chain to the local CA.
        tls.certificateVerification = .optionalVerification
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authority.caCertificatePath))
        return try NIOSSLContext(configuration: tls)
    }

    /// The console port, once the console is listening.
    public func consolePort() async throws -> Int {
        try await consolePortPromise.futureResult.get()
    }

    /// Serves until a shutdown signal or ``shutdown()``, then drains gracefully.
    public func run() async throws {
        do {
            try await group.run()
        } catch {
            consolePortPromise.fail(error)
            throw error
        }
        consolePortPromise.fail(CancellationError())
    }

    /// Starts a graceful shutdown: GOAWAY `Shutdown` to every provider connection, open requests finish,
    /// accepted notifications are committed.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }
}
