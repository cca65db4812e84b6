import NIOCore
import NIOWebSocket

/// The WebSocket rules of the device's side once upgraded (RFC 6455), for ``LinkWebSocket``: every frame it sends
/// is masked, pings are answered with the same data, the gateway's close frame is echoed and ends the connection,
/// and a close of its own waits at most `closeTimeout` for the gateway's. Text messages go up whole (the frame
/// aggregator before it joins fragments); a binary message is a protocol error.
final class LinkFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = LinkWebSocket.Inbound
    typealias OutboundIn = LinkWebSocket.Outbound
    typealias OutboundOut = WebSocketFrame

    private let closeTimeout: TimeAmount
    private var sentClose = false
    private var receivedClose = false

    init(closeTimeout: TimeAmount = .seconds(2)) {
        self.closeTimeout = closeTimeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            context.fireChannelRead(wrapInboundOut(.text(String(buffer: frame.unmaskedData))))
        case .ping:
            send(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData), context: context)
            context.flush()
        case .connectionClose:
            guard !receivedClose else { return }
            receivedClose = true
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode() ?? .normalClosure
            let reason = data.readString(length: data.readableBytes) ?? ""
            context.fireChannelRead(wrapInboundOut(.closed(LinkWebSocket.Close(code: code, reason: reason))))
            guard !sentClose else { return context.close(promise: nil) }
            // Answered with the same code, then the connection ends.
            sentClose = true
            var echo = context.channel.allocator.buffer(capacity: 2)
            echo.write(webSocketErrorCode: code)
            let written = context.eventLoop.makePromise(of: Void.self)
            send(WebSocketFrame(fin: true, opcode: .connectionClose, data: echo), context: context, promise: written)
            context.flush()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        case .binary:
            closeForProtocolError("the gateway sent a binary message", context: context)
        default:
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .text(let text):
            send(WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: text)), context: context, promise: promise)
        case .close(let code, let reason):
            guard !sentClose else {
                promise?.succeed()
                return
            }
            sentClose = true
            var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
            data.write(webSocketErrorCode: code)
            data.writeString(reason)
            send(WebSocketFrame(fin: true, opcode: .connectionClose, data: data), context: context, promise: promise)
            let channel = context.channel
            channel.eventLoop.scheduleTask(in: closeTimeout) { channel.close(promise: nil) }
        }
    }

    private func closeForProtocolError(_ reason: String, context: ChannelHandlerContext) {
        context.fireErrorCaught(GatewayLinkClosed(description: reason))
        context.close(promise: nil)
    }

    /// Every frame from a client is masked (RFC 6455 §5.3).
    private func send(_ frame: WebSocketFrame, context: ChannelHandlerContext, promise: EventLoopPromise<Void>? = nil) {
        var frame = frame
        frame.maskKey = .random()
        context.write(wrapOutboundOut(frame), promise: promise)
    }
}
