import HeraldStore
import Logging
import PostgresNIO
import Synchronization

/// How every call reaches the server: a pooled connection, within the deadline, with errors converted once.
extension PostgresStore {
    /// Runs `body` on a connection of the pool, all of it (waiting for the connection included) within
    /// ``Configuration/requestTimeout``.
    ///
    /// Past the deadline the call fails: when no connection came, with the reason the server cannot be reached
    /// (`.unavailable`) or, if it can, because every connection stayed in use (`.busy`); when the server did not answer
    /// on the connection, `.unavailable`, and that connection is closed, which ends what ran on it (a transaction left
    /// open rolls back).
    ///
    /// - Parameter what: What the call does, for messages: "store 20 notifications".
    func withConnection<Value: Sendable>(
        _ what: @autoclosure () -> String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws(StoreError) -> Value {
        guard !listeners.isClosed else { throw StoreError(.unavailable, "cannot \(what()): the store is closed") }
        let call = Call()
        let value: Value
        do {
            value = try await withThrowingTaskGroup(of: Value?.self) { [client, configuration] group in
                group.addTask { try await Self.run(body, on: client, for: call) }
                group.addTask {
                    try await Task.sleep(for: configuration.requestTimeout)
                    // Closing the connection makes a query waiting on it fail at once. Once it is closed the pool
                    // knows, so the next call cannot be given it.
                    if let connection = call.timeOut() {
                        let _: EventLoopFuture<Void> = connection.close()
                        try? await connection.closeFuture.get()
                    }
                    return nil
                }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let value = next { return value }
                    throw CancellationError()  // timed out: `call` says how
                }
                throw CancellationError()
            }
        } catch {
            switch call.outcome {
            case .timedOut(leased: true):
                throw StoreError(
                    .unavailable, "cannot \(what()): PostgreSQL at \(url.endpoint) did not answer within \(configuration.requestTimeout)")
            case .timedOut(leased: false):
                throw await unreachable(cannot: what())
            case .running where Self.failedBeforeReachingTheServer(error):
                throw await unreachable(cannot: what())
            case .running:
                throw StoreError.postgres(error, cannot: what(), at: url.endpoint)
            }
        }
        return value
    }

    /// Runs `body` on a connection of the pool.
    ///
    /// A connection the pool gives out may have closed meanwhile (the server ended it, a deadline closed it, and the
    /// pool has not heard yet): one known to be closed is handed back for another, and a call that fails because its
    /// connection closed is run once more on another (while its deadline lasts). Every call is safe to run again: reads,
    /// upserts and marks change nothing the second time, and a batch that did commit the first time fails the second
    /// on its unique ids, as it would have failed without the second.
    private static func run<Value: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value, on client: PostgresClient, for call: Call
    ) async throws -> Value {
        var retried = false
        while true {
            do {
                let value: Value? = try await client.withConnection { connection in
                    guard !connection.isClosed else { return nil }
                    call.leased(connection)
                    defer { call.leased(nil) }
                    return try await body(connection)
                }
                if let value { return value }
            } catch let error as PSQLError where !retried && call.isRunning && Self.connectionClosed.contains(error.code) {
                retried = true
            }
            try Task.checkCancellation()
        }
    }

    /// What PostgresNIO says of a request on a connection that closed.
    private static let connectionClosed: Set<PSQLError.Code> = [.clientClosedConnection, .serverClosedConnection, .uncleanShutdown]

    /// Whether `error` came from the pool rather than a connection: the pool gives up leasing once connection attempts
    /// have failed for a minute (its circuit breaker), and says nothing of why.
    private static func failedBeforeReachingTheServer(_ error: any Error) -> Bool {
        !(error is PSQLError || error is PostgresDecodingError || error is StoreError)
    }

    /// The failure of a call that got no connection in time: tries a connection of its own (at most a second) to say
    /// why the server cannot be reached; if it can be, every pooled connection stayed in use.
    private func unreachable(cannot what: String) async -> StoreError {
        var probe = connectionConfiguration
        probe.options.connectTimeout = .seconds(1)
        do {
            let connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
            try? await connection.close()
        } catch {
            return StoreError(.unavailable, "cannot \(what): cannot reach PostgreSQL at \(url.endpoint): \(StoreError.reason(error))")
        }
        return StoreError(
            .busy,
            "cannot \(what): all \(configuration.maximumConnections) connections to PostgreSQL at \(url.endpoint) stayed in use "
                + "for \(configuration.requestTimeout)")
    }

    /// The rows of `sql`, each read by `decode`.
    func rows<Row: Sendable>(
        _ what: @autoclosure () -> String, _ sql: String, _ decode: @escaping @Sendable (inout RowReader) throws -> Row
    ) async throws(StoreError) -> [Row] {
        try await rows(what(), sql, PostgresBindings(), decode)
    }

    /// The rows of `sql` run with `binds`, each read by `decode`.
    func rows<Row: Sendable>(
        _ what: @autoclosure () -> String, _ sql: String, _ binds: PostgresBindings,
        _ decode: @escaping @Sendable (inout RowReader) throws -> Row
    ) async throws(StoreError) -> [Row] {
        try await withConnection(what()) { [logger] connection in
            var rows: [Row] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
                var reader = RowReader(row)
                rows.append(try decode(&reader))
            }
            return rows
        }
    }

    /// Runs `sql` with `binds` for what it does, ignoring any rows.
    func execute(_ what: @autoclosure () -> String, _ sql: String, _ binds: PostgresBindings = PostgresBindings()) async throws(StoreError) {
        try await withConnection(what()) { [logger] connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect()
        }
    }
}

/// Where a call is: running (on a connection or waiting for one), or past its deadline.
private final class Call: Sendable {
    enum Outcome {
        case running
        case timedOut(leased: Bool)
    }

    private struct State {
        var connection: PostgresConnection?
        var outcome = Outcome.running
    }

    private let state = Mutex(State())

    var outcome: Outcome { state.withLock { $0.outcome } }

    var isRunning: Bool {
        if case .running = outcome { return true }
        return false
    }

    /// The connection the call now runs on (nil: none).
    func leased(_ connection: PostgresConnection?) {
        state.withLock { $0.connection = connection }
    }

    /// Marks the call as past its deadline; the connection it runs on, if any, for the deadline to close.
    func timeOut() -> PostgresConnection? {
        state.withLock { state in
            state.outcome = .timedOut(leased: state.connection != nil)
            return state.connection
        }
    }
}

extension PostgresBindings {
    /// Bindings of these values, in order; nil is NULL.
    init(_ values: (any PostgresDynamicTypeEncodable)?...) {
        self.init(capacity: values.count)
        for value in values {
            if let value { append(value) } else { appendNull() }
        }
    }
}
