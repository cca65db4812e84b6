import Dispatch

/// A serial executor on a dispatch queue of its own: the ``LocalEngine`` actor runs here, so that its synchronous
/// SQLite calls (which may wait on a lock held by another process) block this queue's thread, never one of Swift's
/// cooperative threads.
package final class StoreExecutor: SerialExecutor {
    private let queue: DispatchQueue

    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `work` on the queue, after what is already there.
    package func run(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
