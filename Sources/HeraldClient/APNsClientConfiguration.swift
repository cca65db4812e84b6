/// Everything an ``APNsClient`` can be told, with defaults fit for Apple's servers.
///
/// ```swift
/// var configuration = APNsClientConfiguration(endpoint: .development, authentication: try .token(p8File: "key.p8", keyID: "KEY1234567", teamID: "TEAM123456"))
/// configuration.maximumConnections = 8
/// configuration.requestTimeout = .seconds(5)
/// ```
public struct APNsClientConfiguration: Sendable {
    /// How failed requests are sent again.
    public struct RetryPolicy: Sendable, Hashable {
        /// Attempts in all, the first included; 1 turns retries off.
        public var maximumAttempts = 3
        /// The wait before the first retry; it doubles per retry (with jitter) up to ``maximumBackoff``.
        public var initialBackoff = Duration.milliseconds(100)
        public var maximumBackoff = Duration.seconds(5)

        public init() {}

        /// No retries.
        public static var never: RetryPolicy {
            var policy = RetryPolicy()
            policy.maximumAttempts = 1
            return policy
        }
    }

    public var endpoint: APNsEndpoint
    public var authentication: APNsAuthentication
    /// PEM file of the CA to trust instead of the system's roots (a Herald gateway's `DATA_DIR/tls/ca.pem`).
    public var trustRootsPath: String?
    /// Connections opened at most. A new one opens only when every open one is at the server's stream limit.
    public var maximumConnections = 4
    /// The deadline of a `send` that names none: waiting for a connection and a stream, every attempt and
    /// every back-off included.
    public var requestTimeout = Duration.seconds(10)
    /// How long opening a connection (TCP and TLS) may take.
    public var connectTimeout = Duration.seconds(10)
    public var retryPolicy = RetryPolicy()
    /// A connection with nothing in flight for this long is pinged (APNs suggests pinging idle connections
    /// rather than reconnecting).
    public var idlePingInterval = Duration.seconds(60 * 60)
    /// A ping unanswered for this long closes the connection.
    public var pingTimeout = Duration.seconds(10)
    /// Age at which the provider token is signed again (APNs refuses tokens older than an hour).
    public var tokenRefreshInterval = Duration.seconds(50 * 60)
    /// How often deadlines and idle pings are checked on each connection.
    public var timerResolution = Duration.milliseconds(25)

    public init(endpoint: APNsEndpoint, authentication: APNsAuthentication) {
        self.endpoint = endpoint
        self.authentication = authentication
    }
}
