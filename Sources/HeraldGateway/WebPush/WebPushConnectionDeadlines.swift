import NIOCore

/// The Web Push port's deadlines, first in every connection's pipeline: a connection that has sent nothing `handshake`
/// after its accept is closed, as on the provider port, and so is one with no bytes either way for `idle` (an HTTP/1.1
/// keep-alive left open, a TLS handshake never finished). HTTP/2 connections also get GOAWAY `IdleTimeout` from their
/// handler first; Firefox pings its push connection every 30 minutes, within the default idle timeout of an hour.
final class WebPushConnectionDeadlines: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let handshake: TimeAmount
    private let idle: TimeAmount
    private var lastTraffic = NIODeadline.now()
    private var heard = false
    private var timer: Scheduled<Void>?

    init(handshake: TimeAmount, idle: TimeAmount) {
        self.handshake = handshake
        self.idle = idle
    }

    func channelActive(context: ChannelHandlerContext) {
        lastTraffic = .now()
        arm(after: min(handshake, idle), context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        heard = true
        lastTraffic = .now()
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastTraffic = .now()
        context.write(data, promise: promise)
    }

    private func arm(after delay: TimeAmount, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = bound.value
            handler.check(context: context)
        }
    }

    private func check(context: ChannelHandlerContext) {
        let quiet = NIODeadline.now() - lastTraffic
        guard heard else {
            // Nothing read yet: `lastTraffic` is the accept (or an early write, which only moves the deadline later).
            guard quiet >= handshake else { return arm(after: handshake - quiet, context: context) }
            return context.close(promise: nil)
        }
        guard quiet >= idle else { return arm(after: idle - quiet, context: context) }
        context.close(promise: nil)
    }
}
