import HeraldStore
import HeraldWire
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Commits accepted notifications to the store in batches and only then lets their 200s go out.
///
/// Requests arriving while a transaction commits wait for the next one, so under load each commit
/// carries many notifications and throughput does not depend on the disk's sync latency.
final class NotificationWriter: Service, Sendable {
    private struct Pending {
        var notification: StoredNotification
        var promise: EventLoopPromise<Void>
    }

    private struct State {
        var queue: [Pending] = []
        var waiter: CheckedContinuation<Void, Never>?
        var closing = false
    }

    private let state = Mutex(State())
    private let store: any Store
    private let batchLimit: Int
    private let queueLimit: Int
    private let logger: Logger

    init(store: any Store, batchLimit: Int, queueLimit: Int, logger: Logger) {
        self.store = store
        self.batchLimit = batchLimit
        self.queueLimit = queueLimit
        self.logger = logger
    }

    /// Queues `notification`; the future succeeds once it is committed.
    ///
    /// Fails at once with `ServiceUnavailable` when the queue is full, or `Shutdown` once the writer stopped taking work.
    func submit(_ notification: StoredNotification, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        let outcome: Result<CheckedContinuation<Void, Never>?, Rejection> = state.withLock { state in
            if state.closing { return .failure(Rejection(.shutdown, "the gateway is shutting down")) }
            if state.queue.count >= queueLimit {
                return .failure(Rejection(.serviceUnavailable, "the store is not keeping up; retry later"))
            }
            state.queue.append(Pending(notification: notification, promise: promise))
            defer { state.waiter = nil }
            return .success(state.waiter)
        }
        switch outcome {
        case .success(let waiter):
            waiter?.resume()
        case .failure(let rejection):
            promise.fail(rejection)
        }
        return promise.futureResult
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            while let batch = await nextBatch() {
                await commit(batch)
            }
        } onGracefulShutdown: {
            let waiter = self.state.withLock { state in
                state.closing = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Stops taking new notifications; what is queued is still committed.
    func close() {
        let waiter = state.withLock { state in
            state.closing = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The next batch to commit, waiting for one; nil once closing and drained.
    private func nextBatch() async -> [Pending]? {
        while true {
            let batch: [Pending]? = state.withLock { state in
                if state.queue.isEmpty { return state.closing ? [] : nil }
                if state.queue.count <= batchLimit {
                    defer { state.queue = [] }
                    return state.queue
                }
                let batch = Array(state.queue.prefix(batchLimit))
                state.queue.removeFirst(batchLimit)
                return batch
            }
            if let batch { return batch.isEmpty ? nil : batch }
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if !state.queue.isEmpty || state.closing { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    private func commit(_ batch: [Pending]) async {
        do {
            try await store.insertNotifications(batch.map(\.notification))
            Self.complete(batch, failure: nil)
        } catch {
            logger.error("store commit failed", metadata: ["count": "\(batch.count)", "error": "\(error.code): \(error.message)"])
            Self.complete(batch, failure: Rejection(.internalServerError, "the notification could not be stored"))
        }
    }

    /// Completes each event loop's promises in one task on that loop, not one cross-thread hop per promise.
    private static func complete(_ batch: [Pending], failure: Rejection?) {
        var byLoop: [ObjectIdentifier: [EventLoopPromise<Void>]] = [:]
        for pending in batch {
            byLoop[ObjectIdentifier(pending.promise.futureResult.eventLoop), default: []].append(pending.promise)
        }
        for promises in byLoop.values {
            promises[0].futureResult.eventLoop.execute {
                for promise in promises {
                    if let failure { promise.fail(failure) } else { promise.succeed() }
                }
            }
        }
    }
}
