import Foundation
import HeraldWire
import NIOCore
import NIOHTTP1

/// One HTTP/1.1 connection of the Web Push port: each request's body gathered (at most a little over the 4,096 bytes a
/// message may have, so a huge body is refused without being held) and handed to ``WebPushService``. swift-nio's
/// pipelining handler keeps answers in request order.
final class WebPushHTTP1Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let service: WebPushService
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var tooLarge = false

    init(service: WebPushService) {
        self.service = service
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            tooLarge = false
        case .body(var bytes):
            // One byte past the limit is enough for the service to answer 413.
            let room = WebPushHead.maximumBodySize + 1 - body.readableBytes
            if bytes.readableBytes > room {
                tooLarge = true
                if room > 0, let slice = bytes.readSlice(length: room) { body.writeImmutableBuffer(slice) }
            } else {
                body.writeBuffer(&bytes)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            dispatch(head, context: context)
        }
    }

    private func dispatch(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(head.headers.count)
        for (name, value) in head.headers { headers.append((name.lowercased(), value)) }
        let request = WebPushService.Request(
            method: head.method.rawValue, path: head.uri, authority: head.headers.first(name: "host") ?? "",
            headers: headers, body: Data(body.readableBytesView))
        let keepAlive = head.isKeepAlive && !tooLarge
        let version = head.version
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        service.handle(request, on: context.eventLoop) { response in
            let (handler, context) = bound.value
            handler.write(response, version: version, keepAlive: keepAlive, context: context)
        }
    }

    private func write(_ response: WebPushService.Response, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(response.headers)
        headers.add(name: "content-length", value: "\(response.body?.count ?? 0)")
        if !keepAlive { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = response.body { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil) }
        let done = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
        if !keepAlive { done.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
    }
}
