public import HeraldGateway
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import Prometheus
public import ServiceLifecycle

/// The console port: the console's pages (`/`, `/sign-in`), `/healthz`, Prometheus `/metrics` and the admin API
/// under `/v1/`; over HTTPS when the gateway gives it TLS (the console listens beyond loopback).
///
/// ```swift
/// let gateway = try await Gateway.start(configuration: configuration, store: store, dataDirectory: directory,
///                                       console: Console.service, logger: logger)
/// ```
public enum Console {
    /// The console for a gateway: its web application and the provider client of its send form, as one service.
    public static func service(_ parts: GatewayParts) throws -> any Service {
        let configuration = parts.configuration
        let auth = ConsoleAuth(token: parts.adminToken, sessions: ConsoleSessions(), dataDirectory: parts.dataDirectory)
        let browsers = BrowserDevices()
        let sender = ConsoleSender(
            store: parts.store, dataDirectory: parts.dataDirectory, environment: configuration.environment,
            provider: .init(
                host: configuration.host, port: parts.providerPort, usesTLS: !configuration.plaintext, trustRootsPath: parts.trustRootsPath),
            clock: parts.clock, logger: parts.logger)
        let admin = AdminAPI(
            store: parts.store, hub: parts.hub, auth: auth, events: parts.events,
            validators: ConsoleValidators(store: parts.store, inspector: parts.tokenInspector, hub: parts.hub, clock: parts.clock),
            sender: sender,
            browsers: browsers,
            keys: ConsoleKeys(
                store: parts.store, directory: parts.directory, retirements: parts.retirements, environment: configuration.environment,
                clock: parts.clock),
            directory: parts.directory,
            faults: ConsoleFaults(store: parts.store, faults: parts.faults, clock: parts.clock),
            webPush: ConsoleWebPush(refusals: parts.webPushRefusals, dataDirectory: parts.dataDirectory, origin: parts.webPushOrigin)
        )
        let relay = DeviceLinkRelay(
            devicePort: parts.devicePort, host: configuration.host,
            tls: configuration.plaintext ? nil : try DeviceLinkRelay.clientTLS(trusting: parts.trustRootsPath),
            messageLimit: configuration.deviceLinkMessageLimit, auth: auth, browsers: browsers, logger: parts.logger)
        let application = try application(parts: parts, admin: admin, relay: relay)
        return ServiceGroup(
            configuration: .init(services: [.init(service: sender), .init(service: application)], logger: parts.logger))
    }

    private static func application(parts: GatewayParts, admin: AdminAPI, relay: DeviceLinkRelay) throws -> some ApplicationProtocol {
        let (configuration, metrics, readiness, logger) = (parts.configuration, parts.metrics, parts.readiness, parts.logger)
        let router = Router()
        router.add(middleware: ConsoleSecurityHeaders.middleware)
        // Ready unless the store cannot be reached (a cluster's PostgreSQL): a load balancer then sends elsewhere.
        router.get("healthz") { _, _ in
            let reason = readiness.notReadyReason
            return Response(
                status: reason == nil ? .ok : .serviceUnavailable,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: reason.map { "not ready: \($0)\n" } ?? "ok\n"))
            )
        }
        router.get("metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer()))
            )
        }
        admin.register(on: router)
        // What a request for the relayed device link gets when it is not upgraded.
        router.get(RouterPath(DeviceLinkRelay.path)) { request, _ in
            admin.auth.caller(of: request) == nil
                ? AdminAPI.error(.unauthorized, "Unauthorized", "sign in at /sign-in, then open /device")
                : AdminAPI.error(.upgradeRequired, "UpgradeRequired", "the browser device's link is a WebSocket from the console's own page")
        }
        let pages = ConsolePages(auth: admin.auth, secure: parts.consoleTLS != nil)
        if pages.assets.isEmpty { logger.warning("\(ConsolePages.missingAssets)") }
        pages.register(on: router)
        let server = HTTPServerBuilder.http1WebSocketUpgrade(
            configuration: .init(ws: .init(maxFrameSize: configuration.deviceLinkMessageLimit))
        ) { request, _, _ in relay.shouldUpgrade(request) }
        return Application(
            router: router,
            server: try parts.consoleTLS.map { try .tls(server, tlsConfiguration: $0) } ?? server,
            configuration: .init(address: .hostname(configuration.consoleHost, port: configuration.consolePort), serverName: "herald"),
            onServerRunning: { channel in parts.consoleListening(channel.localAddress?.port ?? configuration.consolePort) },
            eventLoopGroupProvider: .shared(parts.eventLoopGroup),
            logger: logger
        )
    }
}
