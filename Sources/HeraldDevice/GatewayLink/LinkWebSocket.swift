import HeraldTLS
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// The device link's WebSocket client, straight on NIO: TCP, TLS (SNI for a host name only, so a gateway named
/// by its IPv4 or IPv6 address links and its certificate's IP addresses are checked), the HTTP upgrade, masked
/// frames, pings answered, and the closing handshake. Messages are text both ways.
///
/// ```swift
/// let socket = LinkWebSocket(host: TLSHost("192.168.1.20"), port: 5223, path: "/v1/link", tls: context, trustedCA: caPath)
/// try await socket.run { inbound, outbound in
///     for try await event in inbound { … try await outbound.write(.text("…")) }
/// }
/// ```
struct LinkWebSocket: Sendable {
    /// What the connection hands up: a whole text message, or the gateway's close frame (the last event).
    enum Inbound: Sendable {
        case text(String)
        case closed(Close)
    }

    /// What the device sends.
    enum Outbound: Sendable {
        case text(String)
        /// Starts the closing handshake; the connection closes when the gateway answers or after a short wait.
        case close(WebSocketErrorCode, reason: String)
    }

    /// A close frame's code and reason.
    struct Close: Sendable, CustomStringConvertible {
        var code: WebSocketErrorCode
        var reason: String

        var description: String { reason.isEmpty ? "\(code)" : "\(code): \(reason)" }
    }

    typealias Channel = NIOAsyncChannel<Inbound, Outbound>

    let host: TLSHost
    let port: Int
    let path: String
    let tls: NIOSSLContext?
    let trustedCA: String?
    /// The largest message the gateway may send, in bytes.
    var maxMessageSize = 1 << 16

    /// Connects, upgrades, and runs `body` with the gateway's messages and a writer; the connection closes when
    /// `body` returns.
    ///
    /// - Throws: A refused certificate (``TLSCertificateFailure``), a failed connection or upgrade, or what `body` throws.
    func run<Result: Sendable>(
        _ body: (NIOAsyncChannelInboundStream<Inbound>, NIOAsyncChannelOutboundWriter<Outbound>) async throws -> Result
    ) async throws -> Result {
        guard let channel = try await connect().get() else {
            throw GatewayLinkClosed(description: "the gateway at \(host):\(port) declined the WebSocket upgrade of \(path)")
        }
        return try await channel.executeThenClose { inbound, outbound in try await body(inbound, outbound) }
    }

    private func connect() async throws -> EventLoopFuture<Channel?> {
        let (host, port, path, tls, trustedCA, maxMessageSize) = (host, port, path, tls, trustedCA, maxMessageSize)
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(host):\(port)")
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: host.name, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        try sync.addTLSClientHandlers(context: tls, host: host, trustedCA: trustedCA)
                    }
                    let upgrader = NIOTypedWebSocketClientUpgrader<Channel?>(maxFrameSize: maxMessageSize) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            let sync = channel.pipeline.syncOperations
                            try sync.addHandler(
                                NIOWebSocketFrameAggregator(
                                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: maxMessageSize
                                ))
                            try sync.addHandler(LinkFrameHandler())
                            return try Channel(wrappingChannelSynchronously: channel)
                        }
                    }
                    var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
                        upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
                            upgradeRequestHead: request, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(nil) }
                        )
                    )
                    configuration.leftOverBytesStrategy = .forwardBytes
                    return try sync.configureUpgradableHTTPClientPipeline(configuration: configuration)
                }
            }
    }
}
