import HeraldStore
import HeraldWire
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Commits accepted notifications to the store in batches and only then lets their 200s go out.
///
/// Requests arriving while a transaction commits wait for the next one, so under load each commit
/// carries many notifications and throughput does not depend on the disk's sync latency. No task runs the
/// loop: an idle writer starts a commit at the end of the submitting event loop's turn, so every request read
/// in that turn shares it, and each commit's callback starts the next.
final class NotificationWriter: Service, Sendable {
    /// Called on the submitting event loop with nil once committed, or with the reason it was not.
    typealias Completion = (Rejection?) -> Void

    /// Notifications and the completions waiting for them, index by index.
    private struct Batch {
        var notifications: [StoredNotification] = []
        var completions: [NIOLoopBound<Completion>] = []

        var count: Int { notifications.count }
    }

    private struct State {
        var queue = Batch()
        /// A transaction is being committed; what arrives meanwhile waits for the next one.
        var committing = false
        /// An idle writer was given work: a commit starts once the submitting event loop's turn ends.
        var startScheduled = false
        var closing = false
        /// `run()`, waiting for the writer to be closed and drained.
        var drained: CheckedContinuation<Void, Never>?

        var isIdle: Bool { !committing && queue.count == 0 }

        /// Up to `limit` of the oldest queued, marking a commit under way; nil when nothing waits.
        mutating func nextBatch(limit: Int) -> Batch? {
            guard queue.count > 0 else {
                committing = false
                return nil
            }
            committing = true
            guard queue.count > limit else {
                defer { queue = Batch() }  // the usual case: the whole queue goes, nothing is copied
                return queue
            }
            let batch = Batch(
                notifications: Array(queue.notifications.prefix(limit)),
                completions: Array(queue.completions.prefix(limit))
            )
            queue.notifications.removeFirst(limit)
            queue.completions.removeFirst(limit)
            return batch
        }

        /// The waiting `run()` once closed and drained.
        mutating func takeDrained() -> CheckedContinuation<Void, Never>? {
            guard closing, isIdle else { return nil }
            defer { drained = nil }
            return drained
        }
    }

    private let state = Mutex(State())
    private let store: any Store
    private let batchLimit: Int
    private let queueLimit: Int
    private let metrics: GatewayMetrics
    private let logger: Logger
    /// Says once that commits fail (and once that they work again), not once per batch.
    private let faults: StoreFaultLog
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
        faults = StoreFaultLog(work: "notification commits", logger: logger)
    }

    /// Queues `notification`; `completion` runs on `eventLoop` (the caller's) once it is committed.
    ///
    /// Answers at once with `ServiceUnavailable` when the queue is full, or `Shutdown` once the writer
    /// stopped taking work.
    func submit(_ notification: StoredNotification, on eventLoop: any EventLoop, completion: @escaping Completion) {
        let bound = NIOLoopBound(completion, eventLoop: eventLoop)
        let outcome: Result<Bool, Rejection> = state.withLock { state in
            if state.closing { return .failure(Rejection(.shutdown, "the gateway is shutting down")) }
            if state.queue.count >= queueLimit {
                return .failure(Rejection(.serviceUnavailable, "the store is not keeping up; retry later"))
            }
            state.queue.notifications.append(notification)
            state.queue.completions.append(bound)
            guard !state.committing, !state.startScheduled else { return .success(false) }
            state.startScheduled = true
            return .success(true)
        }
        switch outcome {
        case .success(let startCommit):
            // Tasks run after the loop has handled all of this turn's reads: one commit for all they brought.
            if startCommit { eventLoop.execute { self.startCommit() } }
        case .failure(let rejection):
            completion(rejection)
        }
    }

    private func startCommit() {
        let batch = state.withLock { state in
            state.startScheduled = false
            return state.committing ? nil : state.nextBatch(limit: batchLimit)
        }
        if let batch { commit(batch) }
    }

    /// Waits until the writer is closed (graceful shutdown or cancellation) and what it had queued is committed.
    func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { continuation in
                    let drainedNow = state.withLock { state in
                        if state.closing, state.isIdle { return true }
                        state.drained = continuation
                        return false
                    }
                    if drainedNow { continuation.resume() }
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
        let drained = state.withLock { state in
            state.closing = true
            return state.takeDrained()
        }
        drained?.resume()
    }

    /// Commits `batch` in one transaction, then the next batch if more arrived meanwhile. The store calls back on
    /// its own thread, and the 200s go straight from there to their event loops.
    private func commit(_ batch: Batch) {
        let start = NIODeadline.now()
        let completions = batch.completions
        store.insertNotifications(batch.notifications) { result in
            switch result {
            case .success(let committed):
                self.faults.succeeded()
                self.metrics.recordCommit(count: completions.count, since: start)
                Self.complete(completions, failure: nil)
                self.onCommitted(committed)
            case .failure(let error):
                // Logged once while it repeats (a full disk fails every commit until space returns).
                self.faults.failed(error, refused: completions.count)
                Self.complete(completions, failure: Self.rejection(for: error))
            }
            let (next, drained) = self.state.withLock { state in
                let next = state.nextBatch(limit: self.batchLimit)
                return (next, next == nil ? state.takeDrained() : nil)
            }
            if let next { self.commit(next) }
            drained?.resume()
        }
    }

    /// What providers get when a commit failed: 503 while a retry may succeed (the store is held by another
    /// process, cannot be reached, its disk is full or read-only), else 500. Nothing of the batch was stored.
    static func rejection(for error: StoreError) -> Rejection {
        switch error.code {
        case .busy: Rejection(.serviceUnavailable, "the store is held by another process; retry shortly")
        case .unavailable: Rejection(.serviceUnavailable, "the store cannot be reached; retry later")
        case .full: Rejection(.serviceUnavailable, "the gateway's disk is full; retry later")
        case .readOnly: Rejection(.serviceUnavailable, "the gateway's data directory is read-only; retry later")
        default: Rejection(.internalServerError, "the notification could not be stored")
        }
    }

    /// Runs each event loop's completions in one task on that loop, not one cross-thread hop per notification.
    private static func complete(_ completions: [NIOLoopBound<Completion>], failure: Rejection?) {
        var byLoop: [ObjectIdentifier: [NIOLoopBound<Completion>]] = [:]
        for completion in completions {
            byLoop[ObjectIdentifier(completion.eventLoop), default: []].append(completion)
        }
        for group in byLoop.values {
            group[0].eventLoop.execute {
                for completion in group { completion.value(failure) }
            }
        }
    }
}
