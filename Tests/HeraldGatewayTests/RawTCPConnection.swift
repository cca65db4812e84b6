import NIOCore
import NIOPosix

/// A plain TCP connection that keeps everything the server sends, for the byte-level test clients
/// (``RawHTTP2Connection``, ``RawDeviceLink``).
final class RawTCPConnection: Sendable {
    let channel: any Channel
    /// Everything the server sent, once it closed its side.
    private let received: EventLoopFuture<ByteBuffer>
    private let collector: NIOLoopBound<Collector>

    private init(channel: any Channel, received: EventLoopFuture<ByteBuffer>, collector: NIOLoopBound<Collector>) {
        self.channel = channel
        self.received = received
        self.collector = collector
    }

    /// - Parameter halfClosure: Keep the connection open after the server's FIN (to answer a close after it).
    static func connect(port: Int, halfClosure: Bool = false) async throws -> RawTCPConnection {
        let promise = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: ByteBuffer.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: halfClosure)
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
        return RawTCPConnection(channel: channel, received: promise.futureResult, collector: collector)
    }

    func write(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
    }

    /// What the server sent so far.
    func bytesSoFar() async throws -> ByteBuffer {
        try await channel.eventLoop.submit { self.collector.value.bytes }.get()
    }

    /// The bytes received once `condition` holds for them, or after `timeout` whatever arrived.
    func bytes(until condition: @escaping @Sendable (ByteBuffer) -> Bool, timeout: Duration) async throws -> ByteBuffer {
        let deadline = ContinuousClock.now + timeout
        while true {
            let bytes = try await bytesSoFar()
            if condition(bytes) || ContinuousClock.now >= deadline { return bytes }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Everything the server sent once it closed its side, or nil if it has not within `timeout`.
    func bytesUntilClosed(timeout: Duration) async throws -> ByteBuffer? {
        // Polled: waiting on `received` in a task group would never end (a future's get() ignores cancellation) when
        // the server keeps the connection open, and a test must fail then, not hang.
        let deadline = ContinuousClock.now + timeout
        while !(try await channel.eventLoop.submit { self.collector.value.finished }.get()) {
            guard ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await received.get()
    }

    func close() async {
        try? await channel.close()
    }
}

final class Collector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let promise: EventLoopPromise<ByteBuffer>
    private(set) var bytes = ByteBuffer()
    /// Whether the server has closed its side (and `promise` has everything).
    private(set) var finished = false

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
