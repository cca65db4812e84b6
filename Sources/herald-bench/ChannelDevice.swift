import Crypto
import Foundation
import HeraldTLS
import HeraldWire
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization

/// A simulated device that speaks the device link straight from NIO channel handlers: TLS, the WebSocket
/// upgrade, the signed challenge, one registration, and an ack for every notification, written from the event
/// loop that read it and flushed once per read.
///
/// GatewayLink (what `herald device` runs) hands every message to a task and every ack back to the event loop:
/// two thread hand-offs per notification, which a real device pays on its own cores but which here, with a
/// hundred devices on the gateway's two cores, took about a third of the machine at 10,000/s. `--gateway-link`
/// runs the real thing instead.
final class ChannelDevice: BenchDevice {
    private let host: TLSHost
    private let port: Int
    private let path: String
    private let tls: NIOSSLContext?
    /// The CA file `tls` trusts, to name in a refused certificate's message.
    private let trustedCA: String?
    private let topic: String
    /// A broadcast channel the device subscribes to after registering; it counts as registered once subscribed.
    private let channelID: String?
    /// The device's identity: every link it opens proves this key, so a reconnect is the same device.
    private let key = P256.Signing.PrivateKey()
    private let token = Mutex<String?>(nil)
    private let closedReason = Mutex<String?>(nil)

    /// - Parameter tls: The client TLS context (one shared by every device), used when `gateway` is `https://`.
    init(gateway: String, tls: NIOSSLContext, trustedCA: String?, topic: String, channelID: String? = nil) throws {
        guard let url = URLComponents(string: gateway), let host = url.host, let scheme = url.scheme?.lowercased() else {
            throw BenchError("\(gateway) is not a URL such as https://localhost:5223")
        }
        guard scheme == "https" || scheme == "http" else {
            throw BenchError("\(gateway): use https:// (or http:// for a --plaintext gateway)")
        }
        self.host = TLSHost(host)
        port = url.port ?? (scheme == "https" ? 443 : 80)
        path = url.path.isEmpty || url.path == "/" ? DeviceLinkMessage.path : url.path
        self.tls = scheme == "https" ? tls : nil
        self.trustedCA = trustedCA
        self.topic = topic
        self.channelID = channelID
    }

    var deviceToken: String? { token.withLock { $0 } }
    var closed: String? { closedReason.withLock { $0 } }

    func run(onNotification: @escaping @Sendable (LinkNotification) -> Void) async {
        closedReason.withLock { $0 = nil }
        let link = DeviceLinkClientHandler.Callbacks(
            registered: { token in self.token.withLock { $0 = token } },
            notification: onNotification,
            closing: { reason in self.closedReason.withLock { $0 = $0 ?? reason } }
        )
        do {
            let (channel, upgraded) = try await connect(link)
            guard try await upgraded.get() else {
                closedReason.withLock { $0 = "the gateway declined the WebSocket upgrade" }
                return channel.close(promise: nil)
            }
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            closedReason.withLock { $0 = $0 ?? "the connection closed" }
        } catch {
            closedReason.withLock { $0 = "\(error)" }
        }
    }

    /// Connects and asks for the upgrade; the future says whether the gateway agreed.
    private func connect(_ link: DeviceLinkClientHandler.Callbacks) async throws -> (any Channel, EventLoopFuture<Bool>) {
        let tls = self.tls
        let (topic, channelID) = (self.topic, self.channelID)
        let key = self.key
        let (host, trustedCA) = (self.host, self.trustedCA)
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(host):\(port)")
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: host.name, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addTLSClientHandlers(context: tls, host: host, trustedCA: trustedCA)
                    }
                    let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(maxFrameSize: 1 << 16) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                DeviceLinkClientHandler(topic: topic, channelID: channelID, key: key, callbacks: link))
                            return true
                        }
                    }
                    var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
                        upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
                            upgradeRequestHead: request, upgraders: [upgrader],
                            notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(false) }
                        )
                    )
                    configuration.leftOverBytesStrategy = .forwardBytes
                    let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
                    return (channel, upgraded)
                }
            }
    }
}

/// The device's side of one link once upgraded. Runs on its channel's event loop only.
final class DeviceLinkClientHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// What the link reports, called on its event loop.
    struct Callbacks: Sendable {
        var registered: @Sendable (_ deviceToken: String) -> Void
        var notification: @Sendable (LinkNotification) -> Void
        /// Why the link is ending, when the device knows (the gateway's close frame, a refusal, an error).
        var closing: @Sendable (_ reason: String) -> Void
    }

    private let topic: String
    private let channelID: String?
    private let key: P256.Signing.PrivateKey
    private let callbacks: Callbacks
    /// A text message arriving in more than one frame.
    private var fragments: ByteBuffer?
    private var needsFlush = false
    /// The token, held until the subscription is answered when there is a channel.
    private var token: String?

    init(topic: String, channelID: String?, key: P256.Signing.PrivateKey, callbacks: Callbacks) {
        self.topic = topic
        self.channelID = channelID
        self.key = key
        self.callbacks = callbacks
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text where frame.fin:
            received(frame.data, context: context)
        case .text:
            fragments = frame.data
        case .continuation:
            guard var message = fragments else { return fail("a continuation frame with no message", context: context) }
            var data = frame.data
            message.writeBuffer(&data)
            fragments = frame.fin ? nil : message
            if frame.fin { received(message, context: context) }
        case .ping:
            write(WebSocketFrame(fin: true, opcode: .pong, data: frame.data), context: context)
        case .connectionClose:
            var data = frame.data
            let code = data.readWebSocketErrorCode().map { "\($0)" } ?? "no code"
            callbacks.closing("the gateway closed the link (\(code): \(data.readString(length: data.readableBytes) ?? ""))")
            write(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer()), context: context)
            context.flush()
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail("\(error)", context: context)
    }

    private func received(_ data: ByteBuffer, context: ChannelHandlerContext) {
        let message: DeviceLinkMessage
        do {
            message = try DeviceLinkMessage.decode(String(decoding: data.readableBytesView, as: UTF8.self))
        } catch {
            return fail("a message that is not the device link's: \(error)", context: context)
        }
        switch message {
        case .challenge(let nonce):
            guard let hello = try? DeviceIdentity.hello(answering: nonce, with: key) else {
                return fail("cannot sign the challenge", context: context)
            }
            send(.hello(hello), context: context)
        case .welcome:
            send(.register(topic: topic), context: context)
        case .registered(_, let deviceToken, _, _, _):
            guard let channelID else { return callbacks.registered(deviceToken) }
            token = deviceToken
            send(.subscribe(topic: topic, channelID: channelID), context: context)
        case .subscribed:
            if let token { callbacks.registered(token) }
        case .notification(let notification):
            callbacks.notification(notification)
            send(.ack(uniqueID: notification.uniqueID), context: context)
        case .error(let refusal):
            fail("the gateway refused: \(refusal.reason) \(refusal.message)", context: context)
        default:
            fail("the gateway sent an unexpected \(message.typeName)", context: context)
        }
    }

    /// Queues `message`; it goes out with the flush at the end of the read that led to it.
    private func send(_ message: DeviceLinkMessage, context: ChannelHandlerContext) {
        write(WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(bytes: message.encodedUTF8())), context: context)
    }

    /// Every frame from a device is masked (RFC 6455 §5.3).
    private func write(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        var frame = frame
        frame.maskKey = .random()
        context.write(wrapOutboundOut(frame), promise: nil)
        needsFlush = true
    }

    private func fail(_ reason: String, context: ChannelHandlerContext) {
        callbacks.closing(reason)
        context.close(promise: nil)
    }
}
