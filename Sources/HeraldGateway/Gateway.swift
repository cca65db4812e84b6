public import HeraldStore
public import HeraldWire
public import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
public import UnixSignals

/// A running Herald gateway: the provider API, the device links, the store writer and (when given) the console, as one
/// service group.
///
/// ```swift
/// let gateway = try await Gateway.start(configuration: configuration, store: store, dataDirectory: directory, logger: logger)
/// print("provider API on", gateway.providerPort)
/// try await gateway.run()   // until SIGTERM or SIGINT, then a graceful shutdown
/// ```
public final class Gateway: Sendable {
    /// The provider API port actually bound (useful when configured as 0).
    public let providerPort: Int
    /// The channel management API port actually bound.
    public let channelsPort: Int
    /// The Web Push port (subscriptions' endpoints, docs/web-push.md).
    public let webPushPort: Int
    /// The CA clients should trust, when the gateway made its own certificate.
    public let caCertificatePath: String?
    public let metrics: GatewayMetrics
    /// The bearer token of the admin API.
    public let adminToken: String
    private let group: ServiceGroup
    private let consolePortPromise: EventLoopPromise<Int>
    private let devicePortPromise: EventLoopPromise<Int>

    private init(
        providerPort: Int,
        channelsPort: Int,
        webPushPort: Int,
        caCertificatePath: String?,
        metrics: GatewayMetrics,
        adminToken: String,
        group: ServiceGroup,
        consolePortPromise: EventLoopPromise<Int>,
        devicePortPromise: EventLoopPromise<Int>
    ) {
        self.providerPort = providerPort
        self.channelsPort = channelsPort
        self.webPushPort = webPushPort
        self.caCertificatePath = caCertificatePath
        self.metrics = metrics
        self.adminToken = adminToken
        self.group = group
        self.consolePortPromise = consolePortPromise
        self.devicePortPromise = devicePortPromise
    }

    /// Prepares TLS and binds the provider API and the channel management API; the console and the device link bind when ``run()`` starts.
    ///
    /// - Parameters:
    ///   - configuration: Ports, environment and limits.
    ///   - store: Where keys, devices and notifications live.
    ///   - dataDirectory: Holds `tls/` (the local CA) and `admin-token`.
    ///   - clock: Wall-clock time for token age and timestamps.
    ///   - signals: Signals that start a graceful shutdown (none in tests).
    ///   - console: What the console port serves, made from the gateway's parts (HeraldConsole's `Console.service`);
    ///     nil: no console port.
    ///   - logger: Where the gateway logs; it never logs tokens, JWTs or payloads.
    public static func start(
        configuration: GatewayConfiguration,
        store: any Store,
        dataDirectory: DataDirectory,
        clock: any WallClock = SystemWallClock(),
        signals: [UnixSignal] = [.sigterm, .sigint],
        console: ConsoleFactory? = nil,
        logger: Logger
    ) async throws -> Gateway {
        let eventLoopGroup = MultiThreadedEventLoopGroup.singleton
        let metrics = GatewayMetrics()
        let authority = LocalCertificateAuthority(dataDirectory: dataDirectory)
        try dataDirectory.prepare()
        let cluster = store as? any ClusterStore
        if let cluster { try await SharedSecrets.shareAuthority(authority, store: cluster) }
        let listening = Set([configuration.host, configuration.consoleHost]).sorted()
        if let names = try authority.ensure(hostNames: listening.flatMap(LocalCertificateAuthority.serverNames(listeningOn:))),
            configuration.tlsCertificatePath == nil, !configuration.plaintext
        {
            logger.info("issued the gateway's TLS certificate from its local CA", metadata: ["names": "\(names.joined(separator: ", "))"])
        }
        let tls = configuration.plaintext ? nil : try makeTLSContext(configuration: configuration, authority: authority)
        let adminToken =
            if let cluster { try await SharedSecrets.adminToken(store: cluster, dataDirectory: dataDirectory) } else {
                try dataDirectory.adminToken()
            }

        let linkChanges = cluster.map { LinkChanges(store: $0, logger: logger) }
        let hub = DeviceHub(changes: linkChanges)
        let events = DeliveryEvents()
        let feed = cluster.map { ClusterFeed(store: $0, hub: hub, events: events, logger: logger) }
        let readiness = Readiness()
        let directory = Directory(store: store, configuration: configuration)
        let retirements = RetirementFeed(
            store: store, hub: hub, events: events, directory: directory, interval: configuration.retirementInterval, logger: logger)
        await retirements.startFromLatest()
        let writer = NotificationWriter(
            store: store,
            batchLimit: configuration.writeBatchLimit,
            queueLimit: configuration.writeQueueLimit,
            metrics: metrics,
            logger: logger,
            onCommitted: { committed in
                if let feed { return feed.committed(committed) }  // handed on in the cluster's commit order
                hub.committed(committed)
                events.publish { DeliveryEvents.committed(committed) }
            }
        )
        let recorder = DeliveryRecorder(store: store, clock: clock, interval: configuration.deliveryRecordInterval, logger: logger)
        let faults = FaultRules(store: store, enabled: configuration.honoursFaults, clock: clock, logger: logger)
        try await faults.start(at: clock.now())
        let processor = ProviderRequestProcessor(
            configuration: configuration,
            directory: directory,
            store: store,
            writer: writer,
            hub: hub,
            clock: clock,
            metrics: metrics,
            faults: faults,
            events: events,
            logger: logger
        )
        let provider = try await ListenError.naming(
            "provider API", flag: "--provider-port", host: configuration.host, port: configuration.providerPort
        ) {
            try await ProviderServer.bind(
                configuration: configuration,
                tls: tls,
                processor: processor,
                metrics: metrics,
                group: eventLoopGroup,
                logger: logger
            )
        }
        let channels = try await ListenError.naming(
            "channel management API", flag: "--channels-port", host: configuration.host, port: configuration.channelsPort
        ) {
            try await ChannelManagementServer.bind(
                host: configuration.host, port: configuration.channelsPort, tls: tls,
                api: ChannelManagementAPI(
                    store: store, directory: directory, environment: configuration.environment, clock: clock,
                    channelLimit: configuration.channelLimit),
                timeouts: .init(handshake: configuration.providerHandshakeTimeout, idle: configuration.idleTimeout),
                group: eventLoopGroup, logger: logger)
        }
        let linkServices = DeviceLinkServices(
            configuration: configuration, store: store, hub: hub, recorder: recorder, directory: directory,
            retirements: retirements, clock: clock, metrics: metrics, logger: logger, events: events
        )
        let webPushRefusals = WebPushRefusals()
        let webPushService = WebPushService(
            configuration: configuration, directory: directory, writer: writer, hub: hub, clock: clock, metrics: metrics,
            events: events, refusals: webPushRefusals, logger: logger)
        let webPush = try await ListenError.naming(
            "Web Push endpoints", flag: "--webpush-port", host: configuration.host, port: configuration.webPushPort
        ) {
            try await WebPushServer.bind(
                host: configuration.host, port: configuration.webPushPort,
                tls: configuration.plaintext ? nil : try webPushTLS(configuration: configuration, authority: authority),
                service: webPushService,
                browsers: linkServices, handshake: configuration.providerHandshakeTimeout, idle: configuration.idleTimeout, group: eventLoopGroup,
                logger: logger)
        }
        linkServices.webPushServed(at: configuration.webPushOrigin(port: webPush.port))
        webPushService.listening(on: webPush.port)
        let consolePort = eventLoopGroup.any().makePromise(of: Int.self)
        let devicePort = eventLoopGroup.any().makePromise(of: Int.self)
        let consoleService: (any Service)?
        do {
            consoleService = try console.map { makeConsole in
                try makeConsole(
                    GatewayParts(
                        configuration: configuration, store: store, dataDirectory: dataDirectory, clock: clock, logger: logger, metrics: metrics,
                        readiness: readiness, hub: hub, events: events, directory: directory, retirements: retirements, faults: faults,
                        webPushRefusals: webPushRefusals, webPushOrigin: configuration.webPushOrigin(port: webPush.port),
                        tokenInspector: ProviderTokenInspector(directory: directory, environment: configuration.environment), adminToken: adminToken,
                        providerPort: provider.port, trustRootsPath: configuration.tlsCertificatePath ?? authority.caCertificatePath,
                        devicePort: devicePort.futureResult,
                        consoleTLS: configuration.consoleUsesTLS ? try http1TLS(configuration: configuration, authority: authority) : nil,
                        eventLoopGroup: eventLoopGroup, consoleListening: { consolePort.succeed($0) }
                    ))
            }
        } catch {
            consolePort.fail(error)
            devicePort.fail(error)
            throw error
        }
        if consoleService == nil { consolePort.fail(NoConsole()) }
        let deviceLinks = DeviceLinkServer(
            services: linkServices,
            tls: configuration.plaintext ? nil : try NIOSSLContext(configuration: http1TLS(configuration: configuration, authority: authority)),
            group: eventLoopGroup,
            onListening: { devicePort.succeed($0) }
        )
        // Services stop in reverse order: the provider API drains first, then the device links; the
        // delivery recorder and the writer commit last.
        var clusterServices: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let cluster, let feed, let linkChanges {
            let node = ClusterNode(
                id: cluster.nodeID, name: configuration.nodeName ?? Self.defaultNodeName(providerPort: provider.port), startedAt: clock.now())
            let membership = ClusterMembership(
                store: cluster, node: node, interval: configuration.heartbeatInterval, lease: configuration.lease, readiness: readiness,
                logger: logger)
            clusterServices = [.init(service: membership), .init(service: feed), .init(service: linkChanges)]
        }
        var services =
            clusterServices + [
                .init(service: StoreMaintenance(store: store, interval: .milliseconds(200), logger: logger)),
                .init(service: writer), .init(service: recorder), .init(service: retirements), .init(service: faults),
            ]
        if let consoleService {
            services.append(
                .init(
                    service: NamedListener(
                        service: consoleService, listener: "console", flag: "--console-port", host: configuration.consoleHost,
                        port: configuration.consolePort)))
        }
        services += [
            .init(
                service: NamedListener(
                    service: deviceLinks, listener: "device link", flag: "--device-port", host: configuration.host, port: configuration.devicePort)),
            .init(service: channels),
            .init(service: webPush),
            .init(service: provider),
        ]
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: signals,
                logger: logger
            )
        )
        logger.info(
            "provider API listening",
            metadata: [
                "port": "\(provider.port)", "tls": "\(tls != nil)", "environment": "\(configuration.environment)",
            ])
        return Gateway(
            providerPort: provider.port,
            channelsPort: channels.port,
            webPushPort: webPush.port,
            caCertificatePath: configuration.tlsCertificatePath == nil ? authority.caCertificatePath : nil,
            metrics: metrics,
            adminToken: adminToken,
            group: group,
            consolePortPromise: consolePort,
            devicePortPromise: devicePort
        )
    }

    /// The host name and the provider port: what a node is called unless configured.
    private static func defaultNodeName(providerPort: Int) -> String {
        "\(LocalCertificateAuthority.machineHostName ?? "localhost"):\(providerPort)"
    }

    /// The server certificate and key (given, or the local CA's) with TLS 1.2 as the floor; each port adds its ALPN.
    private static func serverTLS(configuration: GatewayConfiguration, authority: LocalCertificateAuthority) throws -> TLSConfiguration {
        let certificatePath = configuration.tlsCertificatePath ?? authority.serverCertificatePath
        let keyPath = configuration.tlsKeyPath ?? authority.serverKeyPath
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw TLSFileError(path: certificatePath, what: "certificate chain", flag: "--tls-cert", underlying: error)
        }
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw TLSFileError(path: keyPath, what: "private key", flag: "--tls-key", underlying: error)
        }
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        return tls
    }

    private static func makeTLSContext(
        configuration: GatewayConfiguration,
        authority: LocalCertificateAuthority
    ) throws -> NIOSSLContext {
        var tls = try serverTLS(configuration: configuration, authority: authority)
        tls.applicationProtocols = ["h2"]
        // Certificate-based provider authentication: a client certificate is optional, but one that is
        // presented must chain to the local CA.
        tls.certificateVerification = .optionalVerification
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(authority.caCertificatePath))
        return try NIOSSLContext(configuration: tls)
    }

    /// The same certificate as the provider API, offering HTTP/2 and HTTP/1.1 (Web Push senders use either).
    private static func webPushTLS(configuration: GatewayConfiguration, authority: LocalCertificateAuthority) throws -> NIOSSLContext {
        var tls = try serverTLS(configuration: configuration, authority: authority)
        tls.applicationProtocols = ["h2", "http/1.1"]
        return try NIOSSLContext(configuration: tls)
    }

    /// The same certificate as the provider API over HTTP/1.1: for the device link's WebSocket upgrade, and for the
    /// console when it listens beyond loopback.
    private static func http1TLS(configuration: GatewayConfiguration, authority: LocalCertificateAuthority) throws -> TLSConfiguration {
        var tls = try serverTLS(configuration: configuration, authority: authority)
        tls.applicationProtocols = ["http/1.1"]
        return tls
    }

    /// The console port, once the console is listening; ``NoConsole`` when the gateway was started without one.
    public func consolePort() async throws -> Int {
        try await consolePortPromise.futureResult.get()
    }

    /// The device link port, once it is listening.
    public func devicePort() async throws -> Int {
        try await devicePortPromise.futureResult.get()
    }

    /// Serves until a shutdown signal or ``shutdown()``, then drains gracefully.
    public func run() async throws {
        do {
            try await group.run()
        } catch {
            consolePortPromise.fail(error)
            devicePortPromise.fail(error)
            throw error
        }
        consolePortPromise.fail(CancellationError())
        devicePortPromise.fail(CancellationError())
    }

    /// Starts a graceful shutdown: GOAWAY `Shutdown` to every provider connection, open requests finish,
    /// accepted notifications are committed.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }
}
