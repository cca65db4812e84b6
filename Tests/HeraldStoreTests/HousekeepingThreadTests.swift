import CScheduling
import Foundation
import Synchronization
import Testing

@testable import HeraldStore

/// The store's housekeeping runs on one thread of its own, only when nothing else wants the CPU.
@Suite struct HousekeepingThreadTests {
    @Test func jobsRunOnOneThreadOfTheirOwnWhenTheCPUIsIdle() async throws {
        let callersIOClass = cscheduling_io_class()
        let thread = HousekeepingThread(name: "test-housekeep")
        defer { thread.stop() }
        let threads = Mutex<Set<UInt>>([])
        for _ in 0..<20 {
            try await thread.run { threads.withLock { _ = $0.insert(UInt(pthread_self())) } }
        }
        #expect(threads.withLock { $0.count } == 1)
        #expect(!threads.withLock { $0 }.contains(UInt(pthread_self())))
        let (idle, ioClass) = try await thread.run { (cscheduling_is_idle(), cscheduling_io_class()) }
        #expect(idle == 1)
        // Best-effort I/O (2), set explicitly: not the idle class (3) the kernel gives a SCHED_IDLE thread otherwise.
        #expect(ioClass == 2)
        // The caller's own scheduling is untouched.
        #expect(cscheduling_is_idle() == 0)
        #expect(cscheduling_io_class() == callersIOClass)
    }

    @Test func aJobsErrorReachesItsCaller() async throws {
        let thread = HousekeepingThread(name: "test-housekeep")
        defer { thread.stop() }
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await thread.run { throw Failure() } }
        // The thread goes on with the next job.
        #expect(try await thread.run { 42 } == 42)
    }

    @Test func afterStoppingJobsAreRefused() async throws {
        let thread = HousekeepingThread(name: "test-housekeep")
        #expect(try await thread.run { "before" } == "before")
        thread.stop()
        await #expect(throws: CancellationError.self) { try await thread.run { "after" } }
    }
}
