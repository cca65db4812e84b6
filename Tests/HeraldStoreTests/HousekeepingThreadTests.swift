import Foundation
import Synchronization
import Testing

@testable import HeraldStore

/// The store's housekeeping runs on one thread of its own, below the priority of commits and event loops.
@Suite struct HousekeepingThreadTests {
    @Test func jobsRunOnOneThreadOfTheirOwnAtALowerPriority() async throws {
        let callersNiceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let thread = HousekeepingThread(name: "test-housekeep")
        defer { thread.stop() }
        let threads = Mutex<Set<UInt>>([])
        for _ in 0..<20 {
            try await thread.run { threads.withLock { _ = $0.insert(UInt(pthread_self())) } }
        }
        #expect(threads.withLock { $0.count } == 1)
        #expect(!threads.withLock { $0 }.contains(UInt(pthread_self())))
        let niceness = try await thread.run { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
        // At least 10: a process started niced further keeps that (only root may raise a thread's priority).
        #expect(niceness >= HousekeepingThread.niceness)
        #expect(niceness > callersNiceness || callersNiceness >= HousekeepingThread.niceness)
        // The caller's own priority is untouched.
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == callersNiceness)
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
