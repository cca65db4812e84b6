import HeraldWire
import NIOCore
import NIOHTTP2

/// Sits behind the HTTP/2 handler on a provider connection: closes idle connections with
/// GOAWAY `IdleTimeout` and keeps the open-connection gauge.
final class ProviderConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let connection: ProviderConnection
    private let metrics: GatewayMetrics

    init(connection: ProviderConnection, metrics: GatewayMetrics) {
        self.connection = connection
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        metrics.connectionOpened()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        metrics.connectionClosed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .ping(let data, ack: true) = unwrapInboundIn(data).payload, data == ProviderConnection.drainPing {
            connection.finishDraining()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            if !connection.hasOpenStreams {
                connection.startDraining(.idleTimeout)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Protocol violations (floods, oversized frames, bad HPACK) end the connection, never the process.
        context.close(promise: nil)
    }
}
