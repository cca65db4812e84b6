public import Foundation
public import HeraldWire

/// Why a notification was not accepted: APNs' own answer (status and reason, unknown reasons preserved),
/// or what went wrong before an answer came.
///
/// Never contains device tokens, provider tokens or payload text.
///
/// ```swift
/// do {
///     try await client.send(notification, to: token)
/// } catch let error where error.reason == .unregistered {
///     forget(token)
/// }
/// ```
public struct APNsClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; an open set.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case rejected, timeout, connectionFailed, serverCertificate, connectionClosed, invalidRequest, invalidCredentials, shutdown
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// APNs answered with an error status; ``APNsClientError/reason`` says why.
        public static let rejected = Code(.rejected)
        /// No answer before the request's deadline.
        public static let timeout = Code(.timeout)
        /// No connection could be made (DNS, TCP, TLS).
        public static let connectionFailed = Code(.connectionFailed)
        /// The server's certificate was refused: not signed by a CA the client trusts, expired, or made for
        /// other names. The message says which and what to do; no retry can help.
        public static let serverCertificate = Code(.serverCertificate)
        /// The connection ended while the request was in flight; APNs may or may not have accepted it.
        public static let connectionClosed = Code(.connectionClosed)
        /// The request was refused before sending: a bad token, topic, header or payload.
        public static let invalidRequest = Code(.invalidRequest)
        /// The key or certificate cannot be read or used.
        public static let invalidCredentials = Code(.invalidCredentials)
        /// The client is shutting down or has shut down.
        public static let shutdown = Code(.shutdown)

        public var description: String {
            switch base {
            case .rejected: "rejected"
            case .timeout: "timeout"
            case .connectionFailed: "connectionFailed"
            case .serverCertificate: "serverCertificate"
            case .connectionClosed: "connectionClosed"
            case .invalidRequest: "invalidRequest"
            case .invalidCredentials: "invalidCredentials"
            case .shutdown: "shutdown"
            }
        }
    }

    public var code: Code
    /// A sentence for people: what went wrong and, where possible, what to do.
    public var message: String
    /// The HTTP status when APNs answered.
    public var status: Int?
    /// APNs' reason when it answered with one (or named one in a GOAWAY); unknown strings round-trip.
    public var reason: APNsReason?
    /// The notification's `apns-id`, as sent or as echoed.
    public var apnsID: UUID?
    /// The `apns-unique-id` APNs' development environment returns.
    public var uniqueID: UUID?
    /// For 410: when the device token stopped being valid for the topic.
    public var timestamp: Date?
    /// How many times the request was sent (1 when it was not retried).
    public var attempts: Int
    /// The error underneath (an I/O or TLS error, say), if any.
    public var underlying: (any Error)?

    public init(
        _ code: Code,
        _ message: String,
        status: Int? = nil,
        reason: APNsReason? = nil,
        apnsID: UUID? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.attempts = 0
        self.underlying = underlying
    }

    /// Whether sending the same notification again later can succeed: 429 (but not
    /// `TooManyProviderTokenUpdates`), 5xx, `IdleTimeout`, `Shutdown`, and requests the server never processed.
    public var isRetryable: Bool {
        if code == .rejected, let reason { return Self.isRetryable(reason, status: status ?? reason.status) }
        return notProcessed || code == .connectionFailed
    }

    /// Set when the server is known not to have processed the request (GOAWAY past its stream, REFUSED_STREAM,
    /// or never sent), so a retry cannot duplicate it.
    var notProcessed = false

    static func isRetryable(_ reason: APNsReason, status: Int) -> Bool {
        if reason == .idleTimeout || reason == .shutdown { return true }
        if reason == .tooManyProviderTokenUpdates { return false }
        return status == 429 || status >= 500
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let underlying { text += " (\(underlying))" }
        return text
    }
}
