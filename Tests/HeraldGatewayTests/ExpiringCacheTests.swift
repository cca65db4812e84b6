import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import HeraldGateway

/// The directory's cache: one load per key however many wait, stale entries only while their refresh runs.
@Suite(.timeLimit(.minutes(1))) struct ExpiringCacheTests {
    struct LoadFailed: Error {}

    /// A monotonic clock the test moves by hand.
    final class TestClock: Sendable {
        private let current = Mutex(NIODeadline.uptimeNanoseconds(1_000_000_000))
        func now() -> NIODeadline { current.withLock { $0 } }
        func advance(_ amount: TimeAmount) { current.withLock { $0 = $0 + amount } }
    }

    /// A loader that counts its calls and answers only when the test opens it.
    final class GatedLoader: Sendable {
        let gate: EventLoopPromise<String>
        private let calls = Mutex(0)
        var callCount: Int { calls.withLock { $0 } }

        init(eventLoop: any EventLoop) {
            gate = eventLoop.makePromise(of: String.self)
        }

        func load() async throws -> String {
            calls.withLock { $0 += 1 }
            return try await gate.futureResult.get()
        }
    }

    let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
    let clock = TestClock()

    private func cache(timeToLive: TimeAmount = .seconds(1)) -> ExpiringCache<String, String> {
        let clock = self.clock
        return ExpiringCache(timeToLive: timeToLive, limit: 10, now: { clock.now() })
    }

    /// Lets the loading task start, so a test can observe the cache while the load is under way.
    private func waitUntilCalled(_ loader: GatedLoader) async throws {
        for _ in 0..<1000 where loader.callCount == 0 {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(loader.callCount == 1)
    }

    /// Each value lives as long as the lifetime it was given (the directory trusts live devices longer than the rest).
    @Test func eachValueLivesItsOwnLifetime() {
        let clock = self.clock
        let cache = ExpiringCache<String, String>(timeToLive: { $0 == "live" ? .seconds(60) : .seconds(1) }, limit: 10, now: { clock.now() })
        cache.set("live", for: "a")
        cache.set("gone", for: "b")
        clock.advance(.seconds(2))
        #expect(cache.value(for: "a") == "live")
        #expect(cache.value(for: "b") == nil)
        clock.advance(.seconds(59))
        #expect(cache.value(for: "a") == nil)
    }

    /// A full cache drops the entry written longest ago, one per write: the device cache
    /// holds up to a million entries under a lock every event loop shares, so no write may scan them all.
    @Test func aFullCacheDropsTheOldestWrite() {
        let clock = self.clock
        let cache = ExpiringCache<Int, Int>(timeToLive: .seconds(60), limit: 100, now: { clock.now() })
        for key in 0..<100 {
            cache.set(key, for: key)
            clock.advance(.milliseconds(1))
        }
        cache.set(-1, for: 0)  // written again: now the newest
        cache.set(100, for: 100)
        #expect(cache.value(for: 1) == nil)
        #expect(cache.value(for: 0) == -1)
        #expect((2...100).allSatisfy { cache.value(for: $0) == $0 })

        // Rewriting the same keys leaves stale records behind; they never push out live entries.
        for round in 0..<50 {
            for key in 2...100 { cache.set(key + round, for: key) }
        }
        cache.set(101, for: 101)
        #expect(cache.value(for: 0) == nil)  // the oldest write now
        #expect((2...100).allSatisfy { cache.value(for: $0) == $0 + 49 })
        #expect(cache.value(for: 101) == 101)
    }

    @Test func concurrentLoadsOfOneKeyRunTheLoaderOnce() async throws {
        let cache = cache()
        let loader = GatedLoader(eventLoop: eventLoop)
        let waiting = (0..<5).map { _ in cache.load("device", on: eventLoop, using: loader.load) }
        let other = cache.load("other device", on: eventLoop) { "other" }
        loader.gate.succeed("record")

        for future in waiting {
            #expect(try await future.get() == "record")
        }
        #expect(try await other.get() == "other")
        #expect(loader.callCount == 1)
        #expect(cache.value(for: "device") == "record")
    }

    @Test func anExpiredEntryIsServedOnlyWhileItsRefreshRuns() async throws {
        let cache = cache()
        cache.set("old", for: "device")
        clock.advance(.milliseconds(1500))
        #expect(cache.value(for: "device") == nil, "expired, and nothing refreshes it")

        let loader = GatedLoader(eventLoop: eventLoop)
        let refresh = cache.load("device", on: eventLoop, using: loader.load)
        try await waitUntilCalled(loader)
        #expect(cache.value(for: "device") == "old", "expired less than a lifetime ago, refresh under way")

        clock.advance(.milliseconds(600))
        #expect(cache.value(for: "device") == nil, "expired more than a lifetime ago")

        loader.gate.succeed("new")
        #expect(try await refresh.get() == "new")
        #expect(cache.value(for: "device") == "new")
    }

    @Test func withNoLifetimeNothingIsServedStale() async throws {
        let cache = cache(timeToLive: .zero)
        cache.set("old", for: "device")
        let loader = GatedLoader(eventLoop: eventLoop)
        let refresh = cache.load("device", on: eventLoop, using: loader.load)
        try await waitUntilCalled(loader)
        #expect(cache.value(for: "device") == nil)
        loader.gate.succeed("new")
        #expect(try await refresh.get() == "new")
    }

    @Test func aFailedLoadFailsEveryWaiterAndIsNotRemembered() async throws {
        let cache = cache()
        let loader = GatedLoader(eventLoop: eventLoop)
        let first = cache.load("device", on: eventLoop, using: loader.load)
        let second = cache.load("device", on: eventLoop, using: loader.load)
        loader.gate.fail(LoadFailed())

        await #expect(throws: LoadFailed.self) { try await first.get() }
        await #expect(throws: LoadFailed.self) { try await second.get() }
        #expect(loader.callCount == 1)
        #expect(cache.value(for: "device") == nil)

        let retry = cache.load("device", on: eventLoop) { "record" }
        #expect(try await retry.get() == "record", "a failure leaves no load behind to wait on")
    }

    @Test func aValueSetWhileALoadRunsWinsOverWhatTheLoadRead() async throws {
        let cache = cache()
        let loader = GatedLoader(eventLoop: eventLoop)
        let load = cache.load("device", on: eventLoop, using: loader.load)
        try await waitUntilCalled(loader)
        cache.set("retired", for: "device")
        loader.gate.succeed("live, read before the change")

        #expect(try await load.get() == "retired")
        #expect(cache.value(for: "device") == "retired")
    }
}
