import CScheduling
import Foundation
import Synchronization

/// A thread of its own for the store's housekeeping, which gives way to the event loops: the WAL checkpoints (at normal
/// priority) and filling the delivery log's token index (at nice 10).
///
/// That work comes in bursts of a few milliseconds of CPU every beat. On GRDB's threads (libdispatch's, at nice 0, or
/// −2 and −4 for root) it competed with the event loops as an equal or above them, and on a 2-core machine an event
/// loop whose requests had just been committed could wait out the burst before it sent their 200s (the provider API's
/// p99 latency at 10,000/s; docs/latency.md). A lower priority alone did not stop that: the scheduler lets a running
/// thread finish its time slice before a woken one of higher priority. So the thread also takes the longest slice Linux
/// allows, and since Linux 6.12 a woken thread with a shorter slice (every other, at the default) takes the core at
/// once; over time the thread still gets its priority's share. It must keep that share on a saturated machine, which
/// is why it is not SCHED_IDLE: a job starved inside a read of the store, or holding one of SQLite's process-wide
/// locks, would hold up the store's log or its commits (docs/latency.md). A job runs to its end: a cancelled caller
/// still waits for it.
final class HousekeepingThread: Sendable {
    /// The thread's time slice, the longest Linux allows: longer than any other thread's, so that one woken with the
    /// default slice takes the core at once (Linux 6.12 and later).
    static let slice: UInt64 = 100_000_000

    private let queue = JobQueue()

    /// - Parameter niceness: The nice value the thread runs at (0 is normal, 19 the lowest), or its creator's if higher:
    ///   only root may raise a thread's priority.
    init(name: String, niceness: Int32) {
        let queue = queue
        let thread = Thread {
            let niceness = max(niceness, getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
            if cscheduling_set_fair(niceness, Self.slice) != 0 {
                // Linux applies the nice value of `setpriority(PRIO_PROCESS, 0, …)` to the calling thread alone.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
            }
            // Named for `top -H` and /proc (15 bytes at most); a new thread otherwise shows its creator's name.
            Thread.current.name = name
            while let job = queue.next() { job() }
        }
        thread.start()
    }

    /// Runs `body` on the thread, after the jobs submitted before it.
    func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = submit { continuation.resume(with: Result(catching: body)) }
            if !accepted { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Queues `job` without waiting for it; false once stopped.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        queue.add(job)
    }

    /// Lets the thread finish the jobs it has and end; later jobs are refused with `CancellationError`.
    func stop() {
        queue.close()
    }

    private final class JobQueue: Sendable {
        private struct State {
            var jobs: [@Sendable () -> Void] = []
            var closed = false
        }

        private let state = Mutex(State())
        /// Signalled once per job added, and once on closing.
        private let signal = DispatchSemaphore(value: 0)

        func add(_ job: @escaping @Sendable () -> Void) -> Bool {
            let accepted = state.withLock { state in
                guard !state.closed else { return false }
                state.jobs.append(job)
                return true
            }
            if accepted { signal.signal() }
            return accepted
        }

        func close() {
            state.withLock { $0.closed = true }
            signal.signal()
        }

        /// The next job, waiting for one; nil once closed and empty.
        func next() -> (@Sendable () -> Void)? {
            while true {
                signal.wait()
                let (job, done): ((@Sendable () -> Void)?, Bool) = state.withLock { state in
                    if !state.jobs.isEmpty { return (state.jobs.removeFirst(), false) }
                    return (nil, state.closed)
                }
                if let job { return job }
                if done { return nil }
            }
        }
    }
}
