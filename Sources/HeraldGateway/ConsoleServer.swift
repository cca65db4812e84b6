import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import Prometheus

/// The console port: the console's pages (`/`, `/sign-in`), `/healthz`, Prometheus `/metrics` and the admin API
/// under `/v1/`; over HTTPS when `tls` is given (the console listens beyond loopback).
enum ConsoleServer {
    static func makeApplication(
        configuration: GatewayConfiguration,
        metrics: GatewayMetrics,
        readiness: Readiness,
        admin: AdminAPI,
        relay: DeviceLinkRelay,
        tls: TLSConfiguration?,
        group: any EventLoopGroup,
        logger: Logger,
        onListening: @escaping @Sendable (Int) -> Void
    ) throws -> some ApplicationProtocol {
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
        let pages = ConsolePages(auth: admin.auth, secure: tls != nil)
        if pages.assets.isEmpty { logger.warning("\(ConsolePages.missingAssets)") }
        pages.register(on: router)
        let server = HTTPServerBuilder.http1WebSocketUpgrade(
            configuration: .init(ws: .init(maxFrameSize: configuration.deviceLinkMessageLimit))
        ) { request, _, _ in relay.shouldUpgrade(request) }
        return Application(
            router: router,
            server: try tls.map { try .tls(server, tlsConfiguration: $0) } ?? server,
            configuration: .init(address: .hostname(configuration.consoleHost, port: configuration.consolePort), serverName: "herald"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? configuration.consolePort) },
            eventLoopGroupProvider: .shared(group),
            logger: logger
        )
    }
}
