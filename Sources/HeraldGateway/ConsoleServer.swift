import Hummingbird
import Logging
import NIOCore
import Prometheus

/// The console port: `/healthz`, Prometheus `/metrics` and the admin API under `/v1/`.
enum ConsoleServer {
    static func makeApplication(
        configuration: GatewayConfiguration,
        metrics: GatewayMetrics,
        admin: AdminAPI,
        group: any EventLoopGroup,
        logger: Logger,
        onListening: @escaping @Sendable (Int) -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
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
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.consolePort), serverName: "herald"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? configuration.consolePort) },
            eventLoopGroupProvider: .shared(group),
            logger: logger
        )
    }
}
