import Hummingbird
import HummingbirdTLS
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
        admin: AdminAPI,
        tls: TLSConfiguration?,
        group: any EventLoopGroup,
        logger: Logger,
        onListening: @escaping @Sendable (Int) -> Void
    ) throws -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: ConsoleSecurityHeaders())
        router.get("healthz") { _, _ in
            "ok\n"
        }
        router.get("metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer()))
            )
        }
        admin.register(on: router)
        let pages = ConsolePages(auth: admin.auth, secure: tls != nil)
        if pages.assets.isEmpty { logger.warning("\(ConsolePages.missingAssets)") }
        pages.register(on: router)
        return Application(
            router: router,
            server: try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
            configuration: .init(address: .hostname(configuration.consoleHost, port: configuration.consolePort), serverName: "herald"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? configuration.consolePort) },
            eventLoopGroupProvider: .shared(group),
            logger: logger
        )
    }
}
