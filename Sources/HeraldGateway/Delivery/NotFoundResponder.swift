import HeraldWire
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Answers any plain HTTP request on the device port (and a WebSocket upgrade to another path) with 404
/// and a hint, then closes the connection. Removed from the pipeline when a WebSocket upgrade succeeds.
final class NotFoundResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let name = "herald-device-port-404"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let body = context.channel.allocator.buffer(
            string: "This is a Herald device link: connect a WebSocket to \(DeviceLinkMessage.path)\n"
        )
        var head = HTTPResponseHead(version: .http1_1, status: .notFound)
        head.headers.add(name: "content-type", value: "text/plain; charset=utf-8")
        head.headers.add(name: "content-length", value: "\(body.readableBytes)")
        head.headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)))
            .assumeIsolated()
            .whenComplete { _ in context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A refused upgrade is reported before its request is passed on as a plain one, which gets the 404.
        if error is NIOWebSocketUpgradeError { return }
        context.close(promise: nil)
    }
}
