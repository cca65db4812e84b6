import Foundation
import NIOCore
import NIOPosix

/// A TCP connection that writes HTTP/2 frames byte by byte, so tests can send what no well-behaved
/// client library would: oversized frames, header floods, HPACK bombs, reset storms.
final class RawHTTP2Connection: Sendable {
    private let channel: any Channel
    private let received: EventLoopFuture<ByteBuffer>
    private let collector: NIOLoopBound<Collector>

    private init(channel: any Channel, received: EventLoopFuture<ByteBuffer>, collector: NIOLoopBound<Collector>) {
        self.channel = channel
        self.received = received
        self.collector = collector
    }

    /// Connects with h2c prior knowledge and sends the preface and an empty SETTINGS frame.
    static func connect(port: Int) async throws -> RawHTTP2Connection {
        let promise = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: ByteBuffer.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(promise: promise))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        let collector = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: Collector.self), eventLoop: channel.eventLoop)
        }.get()
        let connection = RawHTTP2Connection(channel: channel, received: promise.futureResult, collector: collector)
        try await connection.write(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(type: 0x4, flags: 0, stream: 0, payload: []))
        return connection
    }

    func write(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// Everything the server sent until it closed the connection, or nil if it is still open after `timeout`.
    func bytesUntilClosed(timeout: Duration = .seconds(5)) async throws -> ByteBuffer? {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await self.received.get() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            if first == nil { try? await channel.close() }
            return first
        }
    }

    /// The bytes received once `condition` holds for them, or after `timeout` whatever arrived.
    func bytes(until condition: @escaping @Sendable (ByteBuffer) -> Bool, timeout: Duration = .seconds(10)) async throws -> ByteBuffer {
        let deadline = ContinuousClock.now + timeout
        while true {
            let bytes = try await channel.eventLoop.submit { self.collector.value.bytes }.get()
            if condition(bytes) || ContinuousClock.now >= deadline { return bytes }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The HEADERS frames in `bytes`: stream id and the first byte of the header block.
    static func headersFrames(in bytes: ByteBuffer) -> [(stream: UInt32, firstByte: UInt8)] {
        var buffer = bytes
        var found: [(UInt32, UInt8)] = []
        while buffer.readableBytes >= 9 {
            let length = Int(buffer.getInteger(at: buffer.readerIndex, as: UInt32.self)! >> 8)
            let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self)!
            let stream = buffer.getInteger(at: buffer.readerIndex + 5, as: UInt32.self)! & 0x7FFF_FFFF
            guard buffer.readableBytes >= 9 + length else { break }
            if type == 0x1, length > 0 {
                found.append((stream, buffer.getInteger(at: buffer.readerIndex + 9, as: UInt8.self)!))
            }
            buffer.moveReaderIndex(forwardBy: 9 + length)
        }
        return found
    }

    /// The error code of the first GOAWAY in `bytes`, if any.
    static func goAwayErrorCode(in bytes: ByteBuffer) -> UInt32? {
        var buffer = bytes
        while buffer.readableBytes >= 9 {
            let length = Int(buffer.getInteger(at: buffer.readerIndex, as: UInt32.self)! >> 8)
            let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self)!
            guard buffer.readableBytes >= 9 + length else { return nil }
            if type == 0x7, length >= 8 {
                return buffer.getInteger(at: buffer.readerIndex + 13, as: UInt32.self)
            }
            buffer.moveReaderIndex(forwardBy: 9 + length)
        }
        return nil
    }

    static func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
                UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// An HPACK integer with an `prefixBits`-bit prefix, OR-ed into `firstByte`.
    static func hpackInteger(_ value: Int, prefixBits: Int, firstByte: UInt8) -> [UInt8] {
        let limit = (1 << prefixBits) - 1
        if value < limit { return [firstByte | UInt8(value)] }
        var bytes = [firstByte | UInt8(limit)]
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// A literal header field; with `index` it is added to the dynamic table.
    static func literal(_ name: String, _ value: String, index: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [index ? 0x40 : 0x00]
        bytes += hpackInteger(name.utf8.count, prefixBits: 7, firstByte: 0) + Array(name.utf8)
        bytes += hpackInteger(value.utf8.count, prefixBits: 7, firstByte: 0) + Array(value.utf8)
        return bytes
    }

    /// A valid request header block for `POST path` (no authorization).
    static func requestHeaders(path: String) -> [UInt8] {
        // :method POST (static 3), :scheme http (static 6), :path literal, :authority literal.
        [0x83, 0x86] + literal(":path", path) + literal(":authority", "localhost")
    }
}

final class Collector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let promise: EventLoopPromise<ByteBuffer>
    private(set) var bytes = ByteBuffer()
    private var finished = false

    init(promise: EventLoopPromise<ByteBuffer>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        bytes.writeBuffer(&incoming)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
    }

    /// With half-closure allowed, the server's FIN ends what it sends while the connection stays open.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { finish() }
        context.fireUserInboundEventTriggered(event)
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        promise.succeed(bytes)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
