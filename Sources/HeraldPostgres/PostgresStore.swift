public import HeraldStore
public import Logging
import PostgresNIO
import Synchronization

/// The store several gateway nodes share: one PostgreSQL database, reached through a pool of connections.
///
/// It keeps what ``SQLiteStore`` keeps, with the same semantics (the conformance suite checks both), and what a
/// cluster needs besides (``ClusterStore``): notification ids in commit order across every node, a notice of each
/// commit to every node (`LISTEN`/`NOTIFY`), node leases, device links and shared secrets.
///
/// Every call has a deadline (``Configuration/requestTimeout``): while PostgreSQL is down or does not answer, calls
/// fail within it, and once the server is back the pool connects again by itself.
///
/// ```swift
/// let store = try await PostgresStore(url: "postgres://herald@db.example.com/herald", nodeID: UUID().uuidString, logger: logger)
/// let committed = try await store.insertNotifications(batch)
/// …
/// await store.close()
/// ```
public final class PostgresStore: ClusterStore {
    public let nodeID: String
    /// The server and database, as the URL named them.
    public let url: PostgresURL
    let configuration: Configuration
    let client: PostgresClient
    /// For the connections outside the pool: commit notice streams, ``reachability``'s probes.
    let connectionConfiguration: PostgresConnection.Configuration
    let logger: Logger
    /// Whether the server takes connections, for calls that wait for one.
    let reachability: Reachability
    /// Runs the pool until ``close()``.
    private let running: Task<Void, Never>
    let listeners: CommitListeners

    /// Connects to the database `url` names and brings its schema up to date (``migrate(url:logger:)``), then opens the
    /// pool this store's calls use.
    ///
    /// - Parameters:
    ///   - url: `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (``PostgresURL`` says what it may hold).
    ///   - nodeID: This node's id, for ``ClusterStore``: unique for each run of a node.
    ///   - configuration: Deadlines and the pool's size (``Configuration``).
    ///   - logger: Where the store, its pool and its connections log (at `debug` at most: PostgresNIO's protocol trace
    ///     would show tokens and payloads).
    /// - Throws: ``StoreError`` `.unavailable` when the URL is wrong, the server cannot be reached within
    ///   ``Configuration/connectTimeout``, or its schema is newer than this binary knows.
    public init(url: String, nodeID: String, configuration: Configuration = Configuration(), logger: Logger) async throws(StoreError) {
        let url = try PostgresURL(url)
        let logger = logger.withoutProtocolTrace
        let connectionConfiguration = try url.connectionConfiguration(connectTimeout: configuration.connectTimeout)
        _ = try await Self.migrate(url, connectionConfiguration, logger: logger)
        let lockTimeout = Int((configuration.requestTimeout / 2) / .milliseconds(1))
        let client = PostgresClient(
            configuration: url.clientConfiguration(
                maximumConnections: configuration.maximumConnections,
                connectTimeout: configuration.connectTimeout,
                parameters: [
                    ("lock_timeout", "\(lockTimeout)ms"),
                    ("application_name", String("herald \(nodeID)".prefix(63))),
                ]
            ),
            backgroundLogger: logger
        )
        self.url = url
        self.nodeID = nodeID
        self.configuration = configuration
        self.logger = logger
        self.client = client
        self.connectionConfiguration = connectionConfiguration
        self.reachability = Reachability(configuration: connectionConfiguration, logger: logger)
        self.listeners = CommitListeners()
        running = Task { await client.run() }
    }

    /// Brings the schema of the database `url` names up to the version this binary knows, as each store does when it
    /// starts: for `herald migrate`, ahead of starting the nodes.
    ///
    /// ```swift
    /// let (from, to) = try await PostgresStore.migrate(url: "postgres://herald@db.example.com/herald", logger: logger)
    /// print(from == to ? "schema already at version \(to)" : "schema at version \(to) (was \(from))")
    /// ```
    ///
    /// - Returns: The version the database was at, and the one it is at now.
    /// - Throws: ``StoreError`` `.unavailable` when the URL is wrong, the server cannot be reached, or the database's
    ///   schema is newer than this binary knows.
    public static func migrate(url: String, logger: Logger) async throws(StoreError) -> (from: Int, to: Int) {
        let url = try PostgresURL(url)
        return try await migrate(url, url.connectionConfiguration(connectTimeout: .seconds(10)), logger: logger.withoutProtocolTrace)
    }

    private static func migrate(
        _ url: PostgresURL, _ configuration: PostgresConnection.Configuration, logger: Logger
    ) async throws(StoreError) -> (from: Int, to: Int) {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw StoreError.postgres(error, cannot: "open the store", at: url.endpoint)
        }
        do {
            let versions = try await PostgresSchema.apply(on: connection, database: url.description, logger: logger)
            try? await connection.close()
            return versions
        } catch {
            try? await connection.close()
            throw StoreError.postgres(error, cannot: "bring the schema of \(url.description) up to date", at: url.endpoint)
        }
    }

    /// Ends every commit notice stream and closes the pool's connections; calls made afterwards fail. Waits until the
    /// connections are closed.
    public func close() async {
        for task in listeners.close() {
            task.cancel()
            await task.value
        }
        running.cancel()
        await running.value
    }

    /// A store dropped without ``close()`` still lets its connections go.
    deinit {
        running.cancel()
        for task in listeners.close() { task.cancel() }
    }
}

/// The tasks running the store's commit notice streams, until the store closes.
final class CommitListeners: Sendable {
    private struct State {
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextID = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Keeps `task` until it ends or the store closes; false (and the task is cancelled) once closed.
    func add(_ task: Task<Void, Never>) -> Int? {
        let id: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            state.nextID += 1
            state.tasks[state.nextID] = task
            return state.nextID
        }
        if id == nil { task.cancel() }
        return id
    }

    /// Whether the store was closed.
    var isClosed: Bool { state.withLock { $0.closed } }

    func remove(_ id: Int) {
        _ = state.withLock { $0.tasks.removeValue(forKey: id) }
    }

    /// Every task still running; none can be added from now on.
    func close() -> [Task<Void, Never>] {
        state.withLock { state in
            state.closed = true
            defer { state.tasks = [:] }
            return Array(state.tasks.values)
        }
    }
}
