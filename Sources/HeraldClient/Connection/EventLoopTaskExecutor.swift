package import NIOCore

/// Runs Swift tasks on one of the client's event loops.
///
/// A task that prefers this executor and sends through a connection on the same loop hands its request to
/// the connection and gets the answer back without a thread hop: no wake-up of another thread, no lock
/// handed between cores. ``APNsClient/taskExecutors`` gives one per loop; ``ConnectionPool`` prefers a
/// connection on the loop the caller runs on.
package final class EventLoopTaskExecutor: TaskExecutor, Sendable {
    package let eventLoop: any EventLoop

    package init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Whether the caller runs on this executor's event loop now.
    package var isCurrent: Bool { eventLoop.inEventLoop }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
