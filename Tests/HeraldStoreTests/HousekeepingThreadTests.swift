import CScheduling
import Foundation
import Synchronization
import Testing

@testable import HeraldStore

/// The store's housekeeping runs on threads of its own, which give way to the event loops.
@Suite struct HousekeepingThreadTests {
    @Test(arguments: [Int32(10), 0])
    func jobsRunOnOneThreadOfTheirOwnAtTheirPriorityWithALongSlice(niceness: Int32) async throws {
        let callersNiceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let callersSlice = cscheduling_slice()
        let thread = HousekeepingThread(name: "test-housekeep", niceness: niceness)
        defer { thread.stop() }
        let threads = Mutex<Set<UInt>>([])
        for _ in 0..<20 {
            try await thread.run { threads.withLock { _ = $0.insert(UInt(pthread_self())) } }
        }
        #expect(threads.withLock { $0.count } == 1)
        #expect(!threads.withLock { $0 }.contains(UInt(pthread_self())))
        let (threadsNiceness, slice) = try await thread.run { (getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0), cscheduling_slice()) }
        // A process started niced further keeps that (only root may raise a thread's priority).
        #expect(threadsNiceness == max(niceness, callersNiceness))
        if Self.kernelHasCustomSlices {
            #expect(slice == Int64(HousekeepingThread.slice))
        }
        // The caller's own scheduling is untouched.
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == callersNiceness)
        #expect(cscheduling_slice() == callersSlice)
        #expect(callersSlice != Int64(HousekeepingThread.slice))
    }

    /// Linux 6.12 and later take a fair thread's slice from `sched_setattr`.
    static var kernelHasCustomSlices: Bool {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        return numbers.count == 2 && (numbers[0], numbers[1]) >= (6, 12)
    }

    @Test func aJobsErrorReachesItsCaller() async throws {
        let thread = HousekeepingThread(name: "test-housekeep", niceness: 10)
        defer { thread.stop() }
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await thread.run { throw Failure() } }
        // The thread goes on with the next job.
        #expect(try await thread.run { 42 } == 42)
    }

    @Test func afterStoppingJobsAreRefused() async throws {
        let thread = HousekeepingThread(name: "test-housekeep", niceness: 10)
        #expect(try await thread.run { "before" } == "before")
        thread.stop()
        await #expect(throws: CancellationError.self) { try await thread.run { "after" } }
    }
}
