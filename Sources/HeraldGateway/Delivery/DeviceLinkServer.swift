import HTTPTypes
import HeraldWire
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL

/// The device port: WebSocket over TLS at ``DeviceLinkMessage/path``; anything else is 404.
enum DeviceLinkServer {
    static func makeApplication(
        services: DeviceLinkServices,
        tls: TLSConfiguration?,
        group: any EventLoopGroup,
        onListening: @escaping @Sendable (Int) -> Void
    ) throws -> some ApplicationProtocol {
        let configuration = services.configuration
        let webSocket = HTTP1WebSocketUpgradeChannel.Configuration(
            ws: WebSocketServerConfiguration(
                maxFrameSize: configuration.deviceLinkMessageLimit,
                autoPing: .enabled(timePeriod: .nanoseconds(configuration.deviceLinkPingInterval.nanoseconds)),
                closeTimeout: .seconds(5)
            )
        )
        var server = HTTPServerBuilder.http1WebSocketUpgrade(configuration: webSocket) { request, _, _ in
            guard request.path == DeviceLinkMessage.path else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                try await DeviceLinkSession(services: services, inbound: inbound, outbound: outbound).run()
            }
        }
        if let tls {
            server = try .tls(server, tlsConfiguration: tls)
        }
        let router = Router()
        router.get("/") { _, _ in
            Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "This is a Herald device link: connect a WebSocket to \(DeviceLinkMessage.path)\n")))
        }
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.devicePort), serverName: "herald"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? configuration.devicePort) },
            eventLoopGroupProvider: .shared(group),
            logger: services.logger
        )
    }
}
