public import Foundation
import HeraldTLS
public import HeraldWire
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP/2 connection to an APNs-compatible server (Herald's gateway or Apple's).
///
/// It sends requests with exactly the headers given, so it serves tools and tests that need
/// to send what a broken client would, as well as `herald send`.
///
/// ```swift
/// let connection = try await APNsConnection.connect(to: URL(string: "https://localhost:2197")!, trusting: "ca.pem")
/// let response = try await connection.send(APNsConnection.notificationHeaders(token: token, topic: "com.example.app", jwt: jwt), body: payload)
/// ```
public final class APNsConnection: Sendable {
    /// What the server has said on the connection itself.
    public struct Observed: Sendable {
        /// The last SETTINGS_MAX_CONCURRENT_STREAMS the server announced.
        public var maximumConcurrentStreams: Int?
        /// The `reason` in a GOAWAY's debug data, once one arrived.
        public var goAwayReason: APNsReason?
        public var goAwayReceived = false
    }

    private let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let observed: ConnectionObserver

    private init(channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer, observed: ConnectionObserver) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.observed = observed
    }

    /// Connects to `url` (`https://host:port` for TLS with ALPN h2, `http://host:port` for h2c).
    ///
    /// - Parameters:
    ///   - url: The server.
    ///   - caPath: PEM of the CA to trust; nil trusts the system's roots.
    ///   - clientCertificate: PEM certificate and key paths for certificate-based authentication.
    ///   - timeout: How long connecting may take.
    public static func connect(
        to url: URL,
        trusting caPath: String? = nil,
        clientCertificate: (certificatePath: String, keyPath: String)? = nil,
        timeout: Duration = .seconds(10)
    ) async throws -> APNsConnection {
        guard let host = url.host, let scheme = url.scheme, scheme == "https" || scheme == "http" else {
            throw APNsConnectionError("the gateway URL must look like https://HOST:PORT, not \(url)")
        }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let tls = scheme == "https" ? try makeTLSContext(trusting: caPath, clientCertificate: clientCertificate) : nil
        let observer = ConnectionObserver()
        let tlsHost = TLSHost(host)
        let (channel, multiplexer) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(timeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: tlsHost.name, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls {
                        try sync.addTLSClientHandlers(context: tls, host: tlsHost, trustedCA: caPath)
                    }
                    var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
                    // Tests and diagnostics send deliberately broken header blocks; let them through.
                    connectionConfiguration.headerBlockValidation = .disabled
                    let multiplexer = try sync.configureHTTP2Pipeline(
                        mode: .client,
                        connectionConfiguration: connectionConfiguration,
                        streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeSucceededVoidFuture()
                    }
                    try sync.addHandler(ConnectionObserverHandler(observer: observer))
                    return (channel, multiplexer)
                }
            }
        return APNsConnection(channel: channel, multiplexer: multiplexer, observed: observer)
    }

    private static func makeTLSContext(
        trusting caPath: String?,
        clientCertificate: (certificatePath: String, keyPath: String)?
    ) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.applicationProtocols = ["h2"]
        configuration.minimumTLSVersion = .tlsv12
        if let caPath {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caPath))
        }
        if let clientCertificate {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(clientCertificate.certificatePath).map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: clientCertificate.keyPath, format: .pem))
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// What the server announced so far (SETTINGS, GOAWAY).
    public var observedState: Observed { observed.state.withLock { $0 } }

    public var isActive: Bool { channel.isActive }

    /// The headers of a notification request, in the order APNs clients send them.
    public static func notificationHeaders(
        token: String,
        topic: String?,
        jwt: String?,
        pushType: PushType? = nil,
        priority: Int? = nil,
        expiration: Int64? = nil,
        collapseID: String? = nil,
        apnsID: String? = nil,
        authority: String = "localhost"
    ) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(token)"), (":authority", authority),
        ]
        if let jwt { headers.append(("authorization", "bearer \(jwt)")) }
        if let topic { headers.append(("apns-topic", topic)) }
        if let pushType { headers.append(("apns-push-type", pushType.rawValue)) }
        if let priority { headers.append(("apns-priority", String(priority))) }
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        return headers
    }

    /// Sends one request with exactly these headers and body and waits for the answer.
    ///
    /// - Throws: ``APNsConnectionError`` when the stream is refused or reset, the connection closes, or
    ///   `deadline` passes before the answer.
    public func send(
        headers: [(name: String, value: String)],
        body: Data,
        deadline: Duration = .seconds(30)
    ) async throws -> APNsResponse {
        let request = try await startRequest(headers: headers, deadline: deadline, endStream: body.isEmpty)
        return try await request.finish(body: body)
    }

    /// Opens a stream and sends the request's headers only; ``APNsPendingRequest/finish(body:)`` sends
    /// the body and waits for the answer. Diagnostics use this to hold a request open.
    public func startRequest(
        headers: [(name: String, value: String)],
        deadline: Duration = .seconds(30),
        endStream: Bool = false
    ) async throws -> APNsPendingRequest {
        let promise = channel.eventLoop.makePromise(of: APNsResponse.self)
        let block = HPACKHeaders(headers.map { ($0.name, $0.value) })
        let stream: any Channel
        do {
            stream = try await multiplexer.createStreamChannel { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
                }
            }.get()
        } catch {
            promise.fail(error)
            throw APNsConnectionError("cannot open a stream: \(error)")
        }
        let timeout = stream.eventLoop.scheduleTask(in: TimeAmount(deadline)) {
            promise.fail(APNsConnectionError("no answer within \(deadline)"))
            stream.close(promise: nil)
        }
        promise.futureResult.whenComplete { _ in timeout.cancel() }
        try await stream.writeAndFlush(HTTP2Frame.FramePayload.headers(.init(headers: block, endStream: endStream)))
        return APNsPendingRequest(stream: stream, response: promise.futureResult, bodySent: endStream)
    }

    /// Sends an HTTP/2 PING and waits for its acknowledgement, so every frame the server sent
    /// before it has been seen.
    public func ping() async throws {
        let acknowledged = channel.eventLoop.makePromise(of: Void.self)
        let id = UInt64.random(in: 1 ... .max)
        observed.pings.withLock { $0[id] = acknowledged }
        try await channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: id), ack: false)))
        try await acknowledged.futureResult.get()
    }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }

    /// Completes when the server or we closed the connection.
    public func waitUntilClosed() async {
        try? await channel.closeFuture.get()
    }
}

/// A request whose headers went out and whose body has not.
public struct APNsPendingRequest: Sendable {
    let stream: any Channel
    let response: EventLoopFuture<APNsResponse>
    let bodySent: Bool

    /// Sends the body (ending the stream) and waits for the answer.
    public func finish(body: Data) async throws -> APNsResponse {
        if !bodySent {
            let buffer = stream.allocator.buffer(bytes: body)
            stream.writeAndFlush(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(buffer), endStream: true)), promise: nil)
        }
        return try await response.get()
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

final class ConnectionObserver: Sendable {
    let state = Mutex(APNsConnection.Observed())
    let pings = Mutex<[UInt64: EventLoopPromise<Void>]>([:])
}

private final class ConnectionObserverHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let observer: ConnectionObserver

    init(observer: ConnectionObserver) {
        self.observer = observer
    }

    func channelInactive(context: ChannelHandlerContext) {
        let waiting = observer.pings.withLock { pings in
            defer { pings = [:] }
            return Array(pings.values)
        }
        for promise in waiting { promise.fail(APNsConnectionError("the connection closed")) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams {
                observer.state.withLock { $0.maximumConcurrentStreams = setting.value }
            }
        case .ping(let data, ack: true):
            observer.pings.withLock { $0.removeValue(forKey: data.integer) }?.succeed()
        case .goAway(_, _, let opaqueData):
            let reason = opaqueData.flatMap { try? JSONValue.parse(Data($0.readableBytesView)) }?["reason"]?.stringValue
            observer.state.withLock {
                $0.goAwayReceived = true
                $0.goAwayReason = reason.map(APNsReason.init(rawValue:))
            }
        default:
            break
        }
    }
}

/// Gathers one stream's response and completes the promise with it.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let promise: EventLoopPromise<APNsResponse>
    private var status = 0
    private var headers: [(name: String, value: String)] = []
    private var body = Data()
    private var completed = false

    init(promise: EventLoopPromise<APNsResponse>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            for header in frame.headers {
                if header.name == ":status" {
                    status = Int(header.value) ?? 0
                } else {
                    headers.append((header.name, header.value))
                }
            }
            if frame.endStream { finish() }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data {
                body.append(contentsOf: buffer.readableBytesView)
            }
            if frame.endStream { finish() }
        case .rstStream(let code):
            if code == .noError && status != 0 {
                // A complete answer followed by RST_STREAM(NO_ERROR): the server needs no more of the body (RFC 9113 §8.1).
                finish()
            } else {
                complete(.failure(APNsConnectionError("the server reset the stream (\(code), status \(status))")))
            }
        default:
            break
        }
    }

    private func finish() {
        complete(.success(APNsResponse(status: status, headers: headers, body: body)))
    }

    private func complete(_ result: Result<APNsResponse, any Error>) {
        guard !completed else { return }
        completed = true
        promise.completeWith(result)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.failure(APNsConnectionError("the stream closed before an answer arrived")))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(.failure(APNsConnectionError("stream failed: \(error)")))
        context.close(promise: nil)
    }
}
