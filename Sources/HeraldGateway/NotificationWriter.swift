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
    /// Called on the submitting event loop with nil once committed, or with the reason it was not.
    typealias Completion = (Rejection?) -> Void

    private struct Pending {
        var notification: StoredNotification
        var completion: NIOLoopBound<Completion>
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
    private let metrics: GatewayMetrics
    private let logger: Logger
    /// Receives each committed batch, with ids and delivery states, after its 200s are on their way.
    private let onCommitted: @Sendable ([StoredNotification]) -> Void

    init(
        store: any Store,
        batchLimit: Int,
        queueLimit: Int,
        metrics: GatewayMetrics,
        logger: Logger,
        onCommitted: @escaping @Sendable ([StoredNotification]) -> Void
    ) {
        self.store = store
        self.onCommitted = onCommitted
        self.metrics = metrics
        self.batchLimit = batchLimit
        self.queueLimit = queueLimit
        self.logger = logger
    }

    /// Queues `notification`; `completion` runs on `eventLoop` (the caller's) once it is committed.
    ///
    /// Answers at once with `ServiceUnavailable` when the queue is full, or `Shutdown` once the writer
    /// stopped taking work.
    func submit(_ notification: StoredNotification, on eventLoop: any EventLoop, completion: @escaping Completion) {
        let pending = Pending(notification: notification, completion: NIOLoopBound(completion, eventLoop: eventLoop))
        let outcome: Result<CheckedContinuation<Void, Never>?, Rejection> = state.withLock { state in
            if state.closing { return .failure(Rejection(.shutdown, "the gateway is shutting down")) }
            if state.queue.count >= queueLimit {
                return .failure(Rejection(.serviceUnavailable, "the store is not keeping up; retry later"))
            }
            state.queue.append(pending)
            defer { state.waiter = nil }
            return .success(state.waiter)
        }
        switch outcome {
        case .success(let waiter):
            waiter?.resume()
        case .failure(let rejection):
            completion(rejection)
        }
    }

    func run() async throws {
        // Graceful shutdown and cancellation both stop intake; what is queued is still committed.
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                while let queued = await takeQueue() {
                    // One transaction per `batchLimit` notifications, in arrival order.
                    for start in stride(from: 0, to: queued.count, by: batchLimit) {
                        await commit(Array(queued[start..<min(start + batchLimit, queued.count)]))
                    }
                }
            } onGracefulShutdown: {
                self.close()
            }
        } onCancel: {
            self.close()
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

    /// Everything queued, waiting until something is; nil once closing and drained.
    private func takeQueue() async -> [Pending]? {
        while true {
            let taken: [Pending]? = state.withLock { state in
                if state.queue.isEmpty { return state.closing ? [] : nil }
                defer { state.queue = [] }
                return state.queue
            }
            if let taken { return taken.isEmpty ? nil : taken }
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
            let start = NIODeadline.now()
            let committed = try await store.insertNotifications(batch.map(\.notification))
            metrics.recordCommit(count: batch.count, since: start)
            Self.complete(batch, failure: nil)
            onCommitted(committed)
        } catch {
            logger.error("store commit failed", metadata: ["count": "\(batch.count)", "error": "\(error.code): \(error.message)"])
            Self.complete(batch, failure: Rejection(.internalServerError, "the notification could not be stored"))
        }
    }

    /// Runs each event loop's completions in one task on that loop, not one cross-thread hop per notification.
    private static func complete(_ batch: [Pending], failure: Rejection?) {
        var byLoop: [ObjectIdentifier: [Pending]] = [:]
        for pending in batch {
            byLoop[ObjectIdentifier(pending.completion.eventLoop), default: []].append(pending)
        }
        for group in byLoop.values {
            group[0].completion.eventLoop.execute {
                for pending in group { pending.completion.value(failure) }
            }
        }
    }
}
