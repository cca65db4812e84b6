import HeraldWire
import NIOCore
import NIOHTTP2

/// Collects one HTTP/2 stream's request, hands it to the processor and writes the answer.
final class ProviderStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let connection: ProviderConnection
    private let processor: ProviderRequestProcessor
    private var headers: [(name: String, value: String)]?
    private var body: ByteBuffer
    private var bodyLength = 0
    private var submitted = false

    init(connection: ProviderConnection, processor: ProviderRequestProcessor, allocator: ByteBufferAllocator) {
        self.connection = connection
        self.processor = processor
        body = allocator.buffer(capacity: 0)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let id = (try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)) ?? .rootStream
        connection.streamOpened(id)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connection.streamClosed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if headers == nil {
                headers = frame.headers.map { ($0.name, $0.value) }
            }
            if frame.endStream { submit(context: context) }
        case .data(let frame):
            if case .byteBuffer(var bytes) = frame.data {
                bodyLength += bytes.readableBytes
                let room = ProviderRequest.bodyKeepLimit - body.readableBytes
                if room > 0, let kept = bytes.readSlice(length: min(room, bytes.readableBytes)) {
                    body.writeImmutableBuffer(kept)
                }
            }
            if frame.endStream { submit(context: context) }
        default:
            break
        }
    }

    private func submit(context: ChannelHandlerContext) {
        guard !submitted else { return }
        submitted = true
        let request = ProviderRequest(headers: headers ?? [], body: body, bodyLength: bodyLength)
        processor.process(request, on: connection).assumeIsolated().whenSuccess { response in
            self.write(response, context: context)
        }
    }

    private func write(_ response: ProviderResponse, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let body = response.body(allocator: context.channel.allocator)
        let headers = HTTP2Frame.FramePayload.headers(.init(headers: response.headers, endStream: body == nil))
        context.write(wrapOutboundOut(headers), promise: nil)
        if let body {
            context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        }
        context.flush()
    }
}
