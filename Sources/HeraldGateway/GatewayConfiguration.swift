public import HeraldWire
public import NIOCore

/// Everything a gateway can be told, with the defaults `herald serve` uses.
public struct GatewayConfiguration: Sendable {
    /// Address to listen on; 127.0.0.1 keeps a development gateway private to this machine.
    public var host = "127.0.0.1"
    /// Provider API port (HTTP/2); 0 picks a free port.
    public var providerPort = 2197
    /// Device link port (WebSocket over TLS); 0 picks a free port.
    public var devicePort = 5223
    /// Console port (`/healthz`, `/metrics`, admin API); 0 picks a free port.
    public var consolePort = 8080
    /// The channel management API's port (HTTP/2, as Apple's separate management host); 0 picks a free port.
    public var channelsPort = 2195
    /// The Web Push port (RFC 8030 endpoints, HTTP/2 and HTTP/1.1 over TLS, docs/web-push.md); 0 picks a free port.
    public var webPushPort = 8443
    /// Live broadcast channels an app may have in this gateway's environment (APNs allows 10,000).
    public var channelLimit = 10_000
    /// Address the console listens on: loopback by default, whatever `host` is, since it holds the admin API.
    public var consoleHost = "127.0.0.1"
    /// Serve h2c with prior knowledge instead of TLS on the provider port.
    public var plaintext = false
    /// The environment this gateway plays: development adds `apns-unique-id` to responses.
    public var environment = APNsEnvironment.development
    /// `serve --allow-faults`: honour fault rules in production too (development always does; docs/faults.md).
    public var allowFaults = false

    /// The origin of the Web Push endpoints this gateway hands out for subscriptions made through it (a linked browser's,
    /// a UnifiedPush app's): `https://HOST:PORT`, a loopback or wildcard `host` named localhost (the name its local
    /// certificate has). `port` is the one bound (``webPushPort`` may be 0).
    public func webPushOrigin(port: Int) -> String {
        let name = ["127.0.0.1", "0.0.0.0", "::", "::1"].contains(host) ? "localhost" : host
        return (plaintext ? "http://" : "https://") + (name.contains(":") ? "[\(name)]" : name) + ":\(port)"
    }

    /// Whether this gateway applies fault rules: in development, or in production when allowed.
    public var honoursFaults: Bool { environment == .development || allowFaults }
    /// PEM files for the server certificate and key; nil uses the local CA's under `DATA_DIR/tls/`.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?

    /// Streams allowed on a connection before it has carried one accepted request (APNs allows one).
    public var unauthenticatedMaximumConcurrentStreams = 1
    /// Streams allowed once a request with a valid token succeeded on the connection.
    public var authenticatedMaximumConcurrentStreams = 1000
    /// A connection with no traffic for this long is closed with GOAWAY `IdleTimeout`.
    public var idleTimeout = TimeAmount.minutes(60)
    /// How long a provider connection has, from its accept, to finish TLS and send the HTTP/2 preface.
    public var providerHandshakeTimeout = TimeAmount.seconds(10)
    /// A provider connection on which no request has shown its sender (a valid provider token or client certificate)
    /// this long after its accept is closed with GOAWAY `IdleTimeout` (Apache's first-request deadline is 20 s too);
    /// after that, ``idleTimeout`` applies.
    public var unusedConnectionTimeout = TimeAmount.seconds(20)
    /// A connection (provider or device) whose writes have waited this long because the peer reads nothing is closed.
    public var stalledConnectionTimeout = TimeAmount.seconds(30)
    /// Error responses one connection may produce before the gateway closes it (410 does not count;
    /// BadDeviceToken counts ``badDeviceTokenErrorWeight`` times).
    public var connectionErrorBudget = 500
    public var badDeviceTokenErrorWeight = 5
    /// The error budget of a connection on which no request has shown its sender yet (a valid provider token or
    /// client certificate): a client without credentials learns why from the first answers, and one that floods
    /// (rapid reset, requests never read) is cut off after a few.
    public var unknownSenderErrorBudget = 20

    /// Requests per second one device token may receive, sustained, and in a burst.
    public var deviceTokenRatePerSecond = 2000.0
    public var deviceTokenBurst = 4000.0

    /// How many notifications one store transaction commits at most.
    public var writeBatchLimit = 4096
    /// Notifications waiting for a commit before new ones get 503 ServiceUnavailable.
    public var writeQueueLimit = 100_000

    /// How long a key or device read from the store is trusted before it is read again, so keys,
    /// tokens and revocations made by the CLI reach a running gateway.
    public var directoryTimeToLive = TimeAmount.seconds(1)
    /// How long a live device's record is trusted. Such a record changes only when its token is retired, and the
    /// retirement feed replaces it then (within `retirementInterval`), whoever retired it; this lifetime only bounds
    /// what a missed announcement could leave. Reading each token's record again every `directoryTimeToLive` cost a
    /// store read per request once the tokens were many (5,000 tokens at 25,000 requests/s: 5,000 reads a second).
    public var liveDeviceTimeToLive = TimeAmount.seconds(60)
    /// How often the store is asked for tokens retired by another process (`herald tokens retire`, another node), to
    /// announce them on the event stream and to their linked device.
    public var retirementInterval = Duration.seconds(1)
    /// Verified provider tokens remembered, so requests do not repeat ECDSA.
    public var verifiedTokenCacheLimit = 10_000

    /// HTTP/2 limits against abuse: frame size, header list size (HPACK bombs), HPACK table size.
    public var maximumFrameSize = 16_384
    public var maximumHeaderListSize = 16_384
    public var headerTableSize = 4096
    /// How long a closing connection (shutdown, idle, too many errors) waits for its open requests.
    public var shutdownGracePeriod = TimeAmount.seconds(10)

    /// Notifications sent to one device and not yet acknowledged, at most; the rest wait in the store.
    public var deviceLinkWindow = 256
    /// The largest message a device may send (its messages are small: hello, register, ack).
    public var deviceLinkMessageLimit = 8192
    /// Registrations and unregistrations one link may make at once, and per second after that; beyond, the device
    /// is answered `TooManyRequests`.
    public var deviceLinkRequestBurst = 64
    public var deviceLinkRequestRate = 4.0
    /// Apps one device may have registered at once; beyond, `register` is answered `TooManyApps`.
    public var deviceAppLimit = 256
    /// Live Activity tokens one app on one device may hold at once; beyond, `register` is answered `TooManyActivities`.
    /// iOS keeps a handful of an app's activities alive; a device that never retires its activities' tokens meets this.
    public var deviceActivityTokenLimit = 16
    /// How long a new link has to answer the challenge before it is closed.
    public var deviceAuthenticationTimeout = TimeAmount.seconds(10)
    /// How long a connection to the device port has, from its accept, to finish TLS and the WebSocket upgrade.
    public var deviceLinkHandshakeTimeout = TimeAmount.seconds(10)
    /// Pings on a link, so dead devices are noticed and NAT mappings stay open: a link that has sent
    /// nothing (not even the pong) by the next ping is closed.
    public var deviceLinkPingInterval = TimeAmount.seconds(30)
    /// How long the gateway waits for the device's close frame after sending its own.
    public var deviceLinkCloseTimeout = TimeAmount.seconds(5)
    /// The shortest time between two writes of delivery records (acks, discards). Acks are not urgent; gathering
    /// them turns thousands of tiny commits into a few large ones and leaves the store's one writer to the
    /// notifications providers are waiting on.
    public var deliveryRecordInterval = Duration.milliseconds(50)

    /// What the other nodes of a cluster call this one (nil: the host name and the provider port).
    public var nodeName: String?
    /// How often a cluster node renews its lease in the store, and how long each renewal lasts: a node that stops
    /// renewing (dead, or cut off from the store) counts as gone after the lease, and its devices as offline.
    public var heartbeatInterval = Duration.seconds(1)
    public var lease = Duration.seconds(5)

    public init() {}
}

extension GatewayConfiguration {
    /// The console speaks HTTPS (the gateway's certificate, `Secure` cookies) when it listens beyond loopback and
    /// the gateway has TLS at all.
    public var consoleUsesTLS: Bool {
        !plaintext && !["127.0.0.1", "::1", "localhost"].contains(consoleHost)
    }
}
