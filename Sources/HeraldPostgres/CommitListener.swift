public import HeraldStore
import Logging
import NIOCore
import PostgresNIO

extension PostgresStore {
    /// A stream of its own for each call, on a connection of its own (outside the pool) that `LISTEN`s on
    /// `herald_commits`. Each time it starts listening (first, and after its connection was lost and made again, with
    /// a backoff from 100 ms to 2 s) it yields ``CommitNotice/resynchronize``, then one ``CommitNotice/committed(nodeID:ids:)``
    /// per commit, in commit order. It ends when the store closes or the consumer stops iterating.
    public func commitNotices() -> AsyncStream<CommitNotice> {
        let (stream, continuation) = AsyncStream.makeStream(of: CommitNotice.self)
        let listener = CommitListener(
            configuration: connectionConfiguration, endpoint: url.endpoint, checkInterval: self.configuration.listenerCheckInterval,
            checkTimeout: self.configuration.requestTimeout, logger: logger)
        let task = Task { await listener.run(continuation) }
        if let id = listeners.add(task) {
            continuation.onTermination = { [listeners] _ in
                task.cancel()
                listeners.remove(id)
            }
        } else {
            continuation.finish()
        }
        return stream
    }
}

/// Listens for commit notices until cancelled, connecting again whenever the connection is lost.
struct CommitListener: Sendable {
    let configuration: PostgresConnection.Configuration
    let endpoint: String
    /// How often the connection is asked `SELECT 1`; no answer within `checkTimeout` and it is replaced.
    let checkInterval: Duration
    let checkTimeout: Duration
    let logger: Logger

    func run(_ continuation: AsyncStream<CommitNotice>.Continuation) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                failures = 0
                await listen(on: connection, continuation)
                try? await connection.close()
            } catch {
                logger.warning(
                    "commit notices: cannot reach PostgreSQL", metadata: ["endpoint": "\(endpoint)", "error": "\(StoreError.reason(error))"])
            }
            guard !Task.isCancelled else { break }
            failures += 1
            try? await Task.sleep(for: min(.milliseconds(100) * (1 << min(failures - 1, 5)), .seconds(2)))
        }
        continuation.finish()
    }

    /// Yields what the connection hears until it is lost, fails a check or the task is cancelled.
    private func listen(on connection: PostgresConnection, _ continuation: AsyncStream<CommitNotice>.Continuation) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await connection.listen(on: PostgresSchema.commitChannel) { notifications in
                        continuation.yield(.resynchronize)
                        for try await notification in notifications {
                            guard let notice = CommitNotice(payload: notification.payload) else {
                                logger.error("commit notices: a notice cannot be read", metadata: ["payload": "\(notification.payload)"])
                                continue
                            }
                            continuation.yield(notice)
                        }
                    }
                } catch  where !Task.isCancelled {
                    logger.warning(
                        "commit notices: the connection was lost", metadata: ["endpoint": "\(endpoint)", "error": "\(StoreError.reason(error))"])
                } catch {}
            }
            group.addTask { await check(connection) }
            await group.next()
            group.cancelAll()
            // Ends the other task: a listen waiting for notifications, or a check waiting for an answer.
            let _: EventLoopFuture<Void> = connection.close()
        }
    }

    /// Returns once the connection fails to answer `SELECT 1` within `checkTimeout`, or when cancelled.
    private func check(_ connection: PostgresConnection) async {
        while true {
            do {
                try await Task.sleep(for: checkInterval)
            } catch {
                return
            }
            let answered = await withTaskGroup(of: Bool.self) { group in
                group.addTask { (try? await connection.query("SELECT 1", logger: logger).collect()) != nil }
                group.addTask {
                    do {
                        try await Task.sleep(for: checkTimeout)
                    } catch {
                        return true  // answered in time: this task was cancelled
                    }
                    // The query cannot be cancelled: closing the connection ends it.
                    let _: EventLoopFuture<Void> = connection.close()
                    return false
                }
                defer { group.cancelAll() }
                return await group.next() ?? false
            }
            guard answered else {
                logger.warning("commit notices: the connection stopped answering", metadata: ["endpoint": "\(endpoint)"])
                return
            }
        }
    }
}

extension CommitNotice {
    /// Reads a `herald_commits` payload: `NODE FIRST LAST` (the node id may hold spaces; the ids are the last two
    /// words).
    init?(payload: String) {
        let words = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count >= 3, let first = Int64(words[words.count - 2]), let last = Int64(words[words.count - 1]), first <= last else {
            return nil
        }
        self = .committed(nodeID: words.dropLast(2).joined(separator: " "), ids: first...last)
    }
}
