import Foundation
import HeraldTLS
public import HeraldWire
public import Logging
public import NIOCore
public import NIOPosix
import NIOSSL
public import ServiceLifecycle

/// An APNs provider client: sends notifications to Apple's servers or to any APNs-compatible gateway over a
/// pool of HTTP/2 connections, with token or certificate authentication, deadlines and retries.
///
/// ```swift
/// let client = try APNsClient(
///     configuration: .init(endpoint: .development, authentication: try .token(p8File: "AuthKey.p8", keyID: "KEY1234567", teamID: "TEAM123456")),
///     logger: logger
/// )
/// let result = try await client.send(.alert(bundleID: "com.example.app", alert: .init(title: "Hi", body: "There")), to: token)
/// print(result.apnsID)
/// await client.shutdown()   // or run it in a ServiceGroup, which shuts it down gracefully
/// ```
///
/// Logs name connections and endpoints, never device tokens or provider tokens.
public final class APNsClient: Service, Sendable {
    public let configuration: APNsClientConfiguration
    /// The provider tokens in use, when authenticating with a key.
    public let tokens: ProviderTokenCache?
    private let pool: ConnectionPool
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let authority: String
    private let scheme: String

    /// - Parameters:
    ///   - configuration: Endpoint, credentials, pool and timing.
    ///   - eventLoopGroup: Where connections run; NIO's shared group by default.
    ///   - clock: The wall clock that dates provider tokens.
    ///   - logger: Where connection events go (debug and info; never tokens).
    /// - Throws: ``APNsClientError`` `invalidCredentials` when the CA file or certificate cannot be used.
    public init(
        configuration: APNsClientConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        clock: any WallClock = SystemWallClock(),
        logger: Logger
    ) throws(APNsClientError) {
        self.configuration = configuration
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        let endpoint = configuration.endpoint
        let host = TLSHost(endpoint.host)  // an IPv6 address in brackets
        authority = endpoint.port == 443 ? "\(host)" : "\(host):\(endpoint.port)"
        scheme = endpoint.usesTLS ? "https" : "http"
        if let signer = configuration.authentication.tokenSigner {
            tokens = ProviderTokenCache(
                key: signer.key, keyID: signer.keyID, teamID: signer.teamID,
                refreshInterval: TimeInterval(configuration.tokenRefreshInterval.components.seconds), clock: clock
            )
        } else {
            tokens = nil
        }
        let tls = try Self.makeTLSContext(configuration)
        pool = ConnectionPool(configuration: configuration, tls: tls, tokens: tokens, group: eventLoopGroup, logger: logger)
    }

    private static func makeTLSContext(_ configuration: APNsClientConfiguration) throws(APNsClientError) -> NIOSSLContext? {
        guard configuration.endpoint.usesTLS else {
            if case .certificate = configuration.authentication.kind {
                throw APNsClientError(.invalidCredentials, "certificate authentication needs TLS; use an https:// endpoint")
            }
            return nil
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.applicationProtocols = ["h2"]
        tls.minimumTLSVersion = .tlsv12
        if let path = configuration.trustRootsPath {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw APNsClientError(
                    .invalidCredentials, "cannot read the CA certificate \(path); give a PEM file such as the gateway's DATA_DIR/tls/ca.pem")
            }
        }
        if case .certificate(let chain, let key) = configuration.authentication.kind {
            tls.certificateChain = chain.map { .certificate($0) }
            tls.privateKey = .privateKey(key)
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw APNsClientError(.invalidCredentials, "the TLS settings cannot be used (does the key match the certificate?)", underlying: error)
        }
    }

    /// One task executor per event loop of the client's group. Tasks that send many notifications and prefer
    /// these (spread over them) send and get their answers on the connection's own thread, without a hop.
    package var taskExecutors: [EventLoopTaskExecutor] {
        eventLoopGroup.makeIterator().map(EventLoopTaskExecutor.init)
    }

    /// Connections currently open and taking requests.
    public var openConnections: Int { pool.openConnections }

    /// Sends one notification to one device and returns APNs' ids for it.
    ///
    /// Retries, with exponential back-off, only what can succeed later (429 other than
    /// `TooManyProviderTokenUpdates`, 5xx, `IdleTimeout`, `Shutdown`, and requests the server did not
    /// process); never `BadDeviceToken`, `Unregistered` and the like.
    ///
    /// - Parameters:
    ///   - notification: Headers and payload.
    ///   - deviceToken: The device.
    ///   - timeout: The whole send's deadline, retries included; the configuration's `requestTimeout` if nil.
    /// - Throws: ``APNsClientError``: `rejected` with APNs' status and reason, `timeout`, `connectionFailed`,
    ///   `connectionClosed`, `invalidRequest` (before sending), `shutdown`.
    @discardableResult
    public func send(
        _ notification: APNsNotification,
        to deviceToken: DeviceToken,
        timeout: Duration? = nil
    ) async throws(APNsClientError) -> APNsSendResult {
        try notification.validate()
        let apnsID = notification.apnsID ?? APNsID.generate()
        let apnsIDText = APNsID.format(apnsID)
        let headers = makeHeaders(notification, deviceToken: deviceToken, apnsID: apnsIDText)
        return try await perform(headers: headers, body: ByteBuffer(bytes: notification.payload), id: apnsID, idText: apnsIDText, timeout: timeout)
    }

    /// Sends one broadcast (iOS 18) to every Live Activity subscribed to a channel: `POST /4/broadcasts/apps/BUNDLE`.
    ///
    /// The notification is a `liveactivity` push (``APNsNotification/liveActivity(bundleID:event:contentState:timestamp:staleDate:dismissalDate:alert:relevanceScore:attributesType:attributes:)``)
    /// of at most 5,120 bytes; its expiration (0 when unset: not stored) and priority (10 when unset) go with it, as
    /// APNs requires both. Retries as ``send(_:to:timeout:)`` does.
    ///
    /// - Returns: The broadcast's `apns-request-id` (in ``APNsSendResult/apnsID``) and `apns-unique-id`.
    @discardableResult
    public func broadcast(_ notification: APNsNotification, toChannel channelID: String, timeout: Duration? = nil) async throws(APNsClientError)
        -> APNsSendResult
    {
        guard notification.pushType == .liveActivity else {
            throw APNsClientError(.invalidRequest, "a broadcast is a liveactivity push, not \(notification.pushType)", reason: .invalidPushType)
        }
        try notification.validate(payloadLimit: 5120)
        let requestID = notification.apnsID ?? APNsID.generate()
        let requestIDText = APNsID.format(requestID)
        let bundleID = PushType.liveActivity.bundleID(fromTopic: notification.topic) ?? notification.topic
        let headers: [(name: String, value: String)] = [
            (":method", "POST"), (":scheme", scheme), (":path", "/4/broadcasts/apps/" + bundleID), (":authority", authority),
            ("apns-channel-id", channelID), ("apns-push-type", PushType.liveActivity.rawValue),
            ("apns-expiration", String(notification.expiration?.epochSeconds ?? 0)),
            ("apns-priority", String(notification.priority?.rawValue ?? Priority.immediate.rawValue)),
            ("apns-request-id", requestIDText),
        ]
        return try await perform(
            headers: headers, body: ByteBuffer(bytes: notification.payload), id: requestID, idText: requestIDText, timeout: timeout)
    }

    /// One request, retried while APNs' answer says a retry can succeed, within the deadline.
    ///
    /// - Parameter idText: `apnsID` as sent: an answer that names it back (as a 200 does) needs no parsing.
    private func perform(
        headers: [(name: String, value: String)], body: ByteBuffer, id apnsID: UUID, idText: String, timeout: Duration?
    ) async throws(APNsClientError) -> APNsSendResult {
        let deadline = NIODeadline.now() + TimeAmount(timeout ?? configuration.requestTimeout)
        let policy = configuration.retryPolicy
        var attempt = 0
        while true {
            attempt += 1
            var failure: APNsClientError
            do {
                let response = try await attemptOnce(headers: headers, body: body, deadline: deadline)
                if response.status == 200 {
                    return APNsSendResult(
                        apnsID: response.apnsID.flatMap { $0 == idText ? apnsID : APNsID.parse($0) } ?? apnsID,
                        uniqueID: response.uniqueID.flatMap(APNsID.parse),
                        attempts: attempt
                    )
                }
                failure = Self.rejection(response, apnsID: apnsID)
            } catch let streamFailure as StreamFailure {
                failure = Self.convert(streamFailure, apnsID: apnsID)
            } catch let clientError as APNsClientError {
                failure = clientError
                failure.apnsID = apnsID
            } catch {
                failure = APNsClientError(.connectionFailed, "cannot reach \(configuration.endpoint)", apnsID: apnsID, underlying: error)
            }
            failure.attempts = attempt
            guard failure.isRetryable, attempt < policy.maximumAttempts, failure.code != .shutdown else { throw failure }
            // A request the server never processed goes again at once (on another connection); others back off.
            let backoff =
                failure.notProcessed ? .zero : Backoff.wait(attempt: attempt, initial: policy.initialBackoff, maximum: policy.maximumBackoff)
            guard NIODeadline.now() + TimeAmount(backoff) < deadline else { throw failure }
            logger.debug(
                "retrying an APNs request",
                metadata: [
                    "apns-id": "\(APNsID.format(apnsID))", "attempt": "\(attempt)", "error": "\(failure.code) \(failure.reason?.rawValue ?? "")",
                ])
            do {
                try await Task.sleep(for: backoff)
            } catch {
                throw failure
            }
        }
    }

    private func attemptOnce(headers: [(name: String, value: String)], body: ByteBuffer, deadline: NIODeadline) async throws
        -> StreamResponse
    {
        guard deadline > NIODeadline.now() else { throw StreamFailure(kind: .timeout, detail: "no answer before the deadline") }
        let connection = try await pool.lease()
        defer { pool.release(connection) }
        return try await connection.execute { promise in
            StreamRequest(headers: headers, body: body, deadline: deadline, promise: promise)
        }.get()
    }

    private func makeHeaders(_ notification: APNsNotification, deviceToken: DeviceToken, apnsID: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(11)
        headers.append((":method", "POST"))
        headers.append((":scheme", scheme))
        headers.append((":path", "/3/device/" + deviceToken.hex))
        headers.append((":authority", authority))
        headers.append(("apns-push-type", notification.pushType.rawValue))
        headers.append(("apns-topic", notification.topic))
        if let priority = notification.priority { headers.append(("apns-priority", String(priority.rawValue))) }
        if let expiration = notification.expiration { headers.append(("apns-expiration", String(expiration.epochSeconds))) }
        if let collapseID = notification.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        headers.append(("apns-id", apnsID))
        return headers
    }

    private static func rejection(_ response: StreamResponse, apnsID: UUID) -> APNsClientError {
        let body = try? JSONValue.parse(Data(response.body.readableBytesView))
        let reason = body?["reason"]?.stringValue.map(APNsReason.init(rawValue:))
        var error = APNsClientError(
            .rejected,
            "APNs answered \(response.status)" + (reason.map { " \($0.rawValue)" } ?? ""),
            status: response.status,
            reason: reason,
            apnsID: response.apnsID.flatMap(APNsID.parse) ?? apnsID
        )
        error.uniqueID = response.uniqueID.flatMap(APNsID.parse)
        if let milliseconds = body?["timestamp"]?.integerValue {
            error.timestamp = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return error
    }

    private static func convert(_ failure: StreamFailure, apnsID: UUID) -> APNsClientError {
        var error: APNsClientError
        switch failure.kind {
        case .timeout:
            error = APNsClientError(.timeout, failure.detail, apnsID: apnsID)
        case .notProcessed:
            error = APNsClientError(.connectionClosed, failure.detail, reason: failure.goAwayReason, apnsID: apnsID, underlying: failure.underlying)
            error.notProcessed = true
        case .connectionClosed, .reset:
            error = APNsClientError(.connectionClosed, failure.detail, reason: failure.goAwayReason, apnsID: apnsID, underlying: failure.underlying)
        }
        return error
    }

    /// Runs until graceful shutdown (a `ServiceGroup`'s SIGTERM, say), then shuts down.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Takes no new notifications, lets those in flight finish (each within its deadline), and closes
    /// every connection.
    public func shutdown() async {
        await pool.shutdown()
        logger.debug("APNs client shut down")
    }
}
