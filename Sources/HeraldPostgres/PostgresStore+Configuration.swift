extension PostgresStore {
    /// How a ``PostgresStore`` uses its server; the defaults suit a gateway node.
    ///
    /// ```swift
    /// var configuration = PostgresStore.Configuration()
    /// configuration.requestTimeout = .seconds(2)
    /// let store = try await PostgresStore(url: url, nodeID: nodeID, configuration: configuration, logger: logger)
    /// ```
    public struct Configuration: Sendable {
        /// How long a call may take, waiting for a connection included, before it fails: `.unavailable` when the
        /// server cannot be reached or does not answer, `.busy` when every connection stayed in use. So a provider
        /// gets its 503 instead of a request that hangs while PostgreSQL is down. A lock is waited for half as long
        /// (`lock_timeout`), then the call fails `.busy`.
        public var requestTimeout: Duration = .seconds(5)
        /// How long making a connection (TCP, TLS, the login) may take: the store's start, each of the pool's
        /// connections, a commit notice stream's.
        public var connectTimeout: Duration = .seconds(5)
        /// The most connections the store opens to the server at once (besides one for each commit notice stream).
        public var maximumConnections = 10
        /// How long a node's lease must have run out before a heartbeat removes the node and its device links.
        public var expiredNodeRetention: Duration = .seconds(60)
        /// How often a commit notice stream checks that its connection still answers; one lost without a word (a
        /// network that drops packets) is replaced then.
        public var listenerCheckInterval: Duration = .seconds(10)

        public init() {}
    }
}
