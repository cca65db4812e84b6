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
        let leased = LeasedConnection()
        let outcome: Outcome<Value>
        do {
            outcome = try await withThrowingTaskGroup(of: Outcome<Value>.self) { [client, configuration] group in
                group.addTask {
                    .finished(
                        try await client.withConnection { connection in
                            leased.set(connection)
                            defer { leased.set(nil) }
                            return try await body(connection)
                        })
                }
                group.addTask {
                    try await Task.sleep(for: configuration.requestTimeout)
                    // Closing the connection makes a query waiting on it fail at once.
                    let connection = leased.get()
                    if let connection { let _: EventLoopFuture<Void> = connection.close() }
                    return .timedOut(leased: connection != nil)
                }
                defer { group.cancelAll() }
                return try await group.next() ?? .timedOut(leased: false)
            }
        } catch {
            guard Self.failedBeforeReachingTheServer(error) else {
                throw StoreError.postgres(error, cannot: what(), at: url.endpoint)
            }
            throw await unreachable(cannot: what())
        }
        switch outcome {
        case .finished(let value):
            return value
        case .timedOut(leased: true):
            throw StoreError(
                .unavailable, "cannot \(what()): PostgreSQL at \(url.endpoint) did not answer within \(configuration.requestTimeout)")
        case .timedOut(leased: false):
            throw await unreachable(cannot: what())
        }
    }

    private enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case timedOut(leased: Bool)
    }

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

/// The connection a call is using, for its deadline to close.
private final class LeasedConnection: Sendable {
    private let connection = Mutex<PostgresConnection?>(nil)

    func set(_ connection: PostgresConnection?) { self.connection.withLock { $0 = connection } }
    func get() -> PostgresConnection? { connection.withLock { $0 } }
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
