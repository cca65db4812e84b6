import Foundation
import HeraldTLS
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP/2 connection of an ``APNsClient``'s pool.
final class PooledConnection: Sendable {
    let id: Int
    let channel: any Channel
    let gauge: ConnectionGauge
    private let handler: NIOLoopBound<APNsStreamHandler>

    private init(id: Int, channel: any Channel, gauge: ConnectionGauge, handler: NIOLoopBound<APNsStreamHandler>) {
        self.id = id
        self.channel = channel
        self.gauge = gauge
        self.handler = handler
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    /// Whether the pool may give this connection new requests.
    var isUsable: Bool { gauge.usable.load(ordering: .relaxed) && channel.isActive }

    /// Sends one request (queued on the connection while its streams are all busy).
    func execute(_ build: (EventLoopPromise<StreamResponse>) -> StreamRequest) -> EventLoopFuture<StreamResponse> {
        let promise = channel.eventLoop.makePromise(of: StreamResponse.self)
        let request = build(promise)
        if channel.eventLoop.inEventLoop {
            handler.value.submit(request)
        } else {
            let handler = self.handler
            channel.eventLoop.execute { handler.value.submit(request) }
        }
        return promise.futureResult
    }

    /// Lets in-flight requests finish, then closes.
    func close() {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.close() }
    }

    /// Opens a connection (TCP, then TLS with ALPN h2 or h2c with prior knowledge) and waits until it can carry requests.
    static func connect(
        id: Int,
        configuration: APNsClientConfiguration,
        tls: NIOSSLContext?,
        tokens: ProviderTokenCache?,
        eventLoop: any EventLoop,
        logger: Logger
    ) async throws -> PooledConnection {
        let endpoint = configuration.endpoint
        let gauge = ConnectionGauge()
        let timing = APNsStreamHandler.Timing(
            pingInterval: TimeAmount(configuration.idlePingInterval),
            pingTimeout: TimeAmount(configuration.pingTimeout),
            resolution: TimeAmount(configuration.timerResolution)
        )
        let host = TLSHost(endpoint.host)
        var logger = logger
        logger[metadataKey: "apns-connection"] = "\(id)"
        let connectionLogger = logger
        let (channel, handler) = try await ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host.name, port: endpoint.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        try sync.addTLSClientHandlers(context: tls, host: host, trustedCA: configuration.trustRootsPath)
                    }
                    let handler = APNsStreamHandler(
                        gauge: gauge, tokens: tokens, timing: timing, usesTLS: tls != nil,
                        ready: channel.eventLoop.makePromise(), logger: connectionLogger
                    )
                    try sync.addHandler(handler)
                    return (channel, NIOLoopBound(handler, eventLoop: channel.eventLoop))
                }
            }
        let ready = channel.eventLoop.flatSubmit { handler.value.ready.futureResult }
        let timeout = channel.eventLoop.scheduleTask(in: TimeAmount(configuration.connectTimeout)) {
            channel.close(promise: nil)
        }
        do {
            try await ready.get()
            timeout.cancel()
        } catch {
            timeout.cancel()
            channel.close(promise: nil)
            throw error
        }
        logger.debug("APNs connection open", metadata: ["endpoint": "\(endpoint)"])
        return PooledConnection(id: id, channel: channel, gauge: gauge, handler: handler)
    }
}
