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
    /// A call that has waited for a connection for a moment (``waitBeforeProbing``) asks ``Reachability`` whether the server
    /// takes connections, and fails `.unavailable` at once if it does not: while PostgreSQL is down, calls fail in about
    /// that moment rather than at their deadline.
    ///
    /// - Parameter what: What the call does, for messages: "store 20 notifications".
    func withConnection<Value: Sendable>(
        _ what: @autoclosure () -> String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws(StoreError) -> Value {
        guard !listeners.isClosed else { throw StoreError(.unavailable, "cannot \(what()): the store is closed") }
        let call = Call()
        let outcome: DeadlineOutcome<Value>
        do {
            outcome = try await withDeadline(configuration.requestTimeout) {
                // Closing the connection makes a query waiting on it fail at once. Once it is closed the pool knows,
                // so the next call cannot be given it.
                if let connection = call.timeOut() {
                    let _: EventLoopFuture<Void> = connection.close()
                    try? await connection.closeFuture.get()
                }
            } giveUpEarly: { [reachability, waitBeforeProbing] in
                guard (try? await Task.sleep(for: waitBeforeProbing)) != nil, call.isWaitingForAConnection else { return false }
                guard case .refused = await reachability.answer() else { return false }
                return call.giveUpWaiting()
            } _: { [client] in
                try await Self.run(body, on: client, for: call)
            }
        } catch {
            // The connection may have failed the call as the deadline closed it: the deadline is what happened.
            guard case .running = call.outcome else { throw await timedOut(call, cannot: what()) }
            if error is CancellationError { throw StoreError(.unavailable, "cannot \(what()): the call was cancelled", underlying: error) }
            if Self.failedBeforeReachingTheServer(error) { throw await unreachable(cannot: what()) }
            throw StoreError.postgres(error, cannot: what(), at: url.endpoint)
        }
        switch outcome {
        case .finished(let value): return value
        case .timedOut: throw await timedOut(call, cannot: what())
        }
    }

    /// How long a call waits for a connection before asking whether the server takes connections at all.
    var waitBeforeProbing: Duration { min(.milliseconds(500), configuration.requestTimeout / 4) }

    /// The failure of a call past its deadline: the server did not answer on its connection, or no connection came.
    private func timedOut(_ call: Call, cannot what: String) async -> StoreError {
        guard case .timedOut(leased: false) = call.outcome else {
            return StoreError(.unavailable, "cannot \(what): PostgreSQL at \(url.endpoint) did not answer within \(configuration.requestTimeout)")
        }
        return await unreachable(cannot: what)
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
                    // Past the deadline nothing more starts.
                    guard !connection.isClosed, call.start(on: connection) else { return nil }
                    defer { call.end() }
                    let value = try await body(connection)
                    call.finish()
                    return value
                }
                if let value { return value }
            } catch let error as PSQLError where !retried && call.isRunning && Self.connectionClosed.contains(error.code) {
                retried = true
            }
            guard call.isRunning else { throw CancellationError() }
        }
    }

    /// What PostgresNIO says of a request on a connection that closed.
    private static let connectionClosed: Set<PSQLError.Code> = [.clientClosedConnection, .serverClosedConnection, .uncleanShutdown]

    /// Whether `error` came from the pool rather than a connection: the pool gives up leasing once connection attempts
    /// have failed for a minute (its circuit breaker), and says nothing of why. (A cancelled call is not asked.)
    private static func failedBeforeReachingTheServer(_ error: any Error) -> Bool {
        !(error is PSQLError || error is PostgresDecodingError || error is StoreError)
    }

    /// The failure of a call that got no connection in time: why the server cannot be reached (``Reachability``); if
    /// it can be, every pooled connection stayed in use.
    private func unreachable(cannot what: String) async -> StoreError {
        if let reason = await reachability.unreachableReason() {
            return StoreError(.unavailable, "cannot \(what): cannot reach PostgreSQL at \(url.endpoint): \(reason)")
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
        /// Whether its work returned: only the deadline could end the call from then on.
        var finished = false
    }

    private let state = Mutex(State())

    var outcome: Outcome { state.withLock { $0.outcome } }

    var isRunning: Bool {
        if case .running = outcome { return true }
        return false
    }

    /// Records that the call runs on `connection` now; false (and it must not) once past its deadline.
    func start(on connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard case .running = state.outcome else { return false }
            state.connection = connection
            return true
        }
    }

    /// Whether the call waits for a connection: the first, or another after its connection closed under it.
    var isWaitingForAConnection: Bool {
        state.withLock { state in
            guard case .running = state.outcome else { return false }
            return state.connection == nil && !state.finished
        }
    }

    /// Ends a call waiting for a connection as if past its deadline (nothing starts on a connection that comes later);
    /// false when it has one meanwhile or its work returned, and it goes on.
    func giveUpWaiting() -> Bool {
        state.withLock { state in
            guard case .running = state.outcome, state.connection == nil, !state.finished else { return false }
            state.outcome = .timedOut(leased: false)
            return true
        }
    }

    /// Records that the call's work returned (before its connection is let go).
    func finish() {
        state.withLock { $0.finished = true }
    }

    /// Records that the call no longer runs on a connection.
    func end() {
        state.withLock { $0.connection = nil }
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
