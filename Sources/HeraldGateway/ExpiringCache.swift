import NIOCore
import Synchronization

/// A bounded map whose entries are trusted for a fixed time (which may depend on the value), shared across event loops.
///
/// A missing or expired value is loaded once however many ask for it meanwhile, and while that
/// refresh runs an expired entry is still served for up to one more of its lifetimes, so a hot entry
/// expiring neither stalls its requests nor sends each of them to the store.
final class ExpiringCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var expires: NIODeadline
        var lifetime: TimeAmount
        /// Which write made it: the record of that write in `State.order` names the same number.
        var write: UInt64
    }

    private struct Load {
        var waiting: [EventLoopPromise<Value>]
        /// Set while the load ran; newer than what the load read, so it wins.
        var superseded: Value?
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Every write, oldest first: when the map is full, the front makes room.
        /// A key written again leaves its earlier record behind, stale (its number no longer matches the entry's).
        var order = CircularBuffer<(key: Key, write: UInt64)>()
        var writes: UInt64 = 0
        /// Keys being loaded.
        var loading: [Key: Load] = [:]
    }

    private let state = Mutex(State())
    private let timeToLive: @Sendable (Value) -> TimeAmount
    private let limit: Int
    private let now: @Sendable () -> NIODeadline

    convenience init(timeToLive: TimeAmount, limit: Int, now: @escaping @Sendable () -> NIODeadline = NIODeadline.now) {
        self.init(timeToLive: { _ in timeToLive }, limit: limit, now: now)
    }

    /// - Parameter timeToLive: How long a value is trusted, by value.
    init(timeToLive: @escaping @Sendable (Value) -> TimeAmount, limit: Int, now: @escaping @Sendable () -> NIODeadline = NIODeadline.now) {
        self.timeToLive = timeToLive
        self.limit = limit
        self.now = now
    }

    /// The value when present and not yet expired, or expired less than its lifetime ago while its refresh runs.
    func value(for key: Key) -> Value? {
        let now = self.now()
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            if entry.expires > now { return entry.value }
            let refreshing = state.loading[key] != nil
            return refreshing && entry.expires + entry.lifetime > now ? entry.value : nil
        }
    }

    /// Remembers `value`, also over what a load of `key` under way will read; when full, the entry written
    /// longest ago makes room.
    func set(_ value: Value, for key: Key) {
        let now = self.now()
        state.withLock { state in
            self.insert(value, for: key, at: now, into: &state)
            state.loading[key]?.superseded = value
        }
    }

    /// Runs `load` for `key` unless a load of it is already under way, and answers on `eventLoop` with its
    /// outcome. A value loaded is remembered; a failure is not.
    func load(
        _ key: Key,
        on eventLoop: any EventLoop,
        using load: @escaping @Sendable () async throws -> Value
    ) -> EventLoopFuture<Value> {
        let promise = eventLoop.makePromise(of: Value.self)
        let first = state.withLock { state in
            if state.loading[key] != nil {
                state.loading[key]?.waiting.append(promise)
                return false
            }
            state.loading[key] = Load(waiting: [promise])
            return true
        }
        if first {
            Task {
                do {
                    finishLoading(key, with: .success(try await load()))
                } catch {
                    finishLoading(key, with: .failure(error))
                }
            }
        }
        return promise.futureResult
    }

    private func finishLoading(_ key: Key, with loaded: Result<Value, any Error>) {
        let now = self.now()
        let (waiting, result) = state.withLock { state -> ([EventLoopPromise<Value>], Result<Value, any Error>) in
            guard let load = state.loading.removeValue(forKey: key) else { return ([], loaded) }
            if let newer = load.superseded { return (load.waiting, .success(newer)) }
            if case .success(let value) = loaded {
                insert(value, for: key, at: now, into: &state)
            }
            return (load.waiting, loaded)
        }
        for promise in waiting { promise.completeWith(result) }
    }

    /// O(1) amortised, under the lock every event loop shares: one record in, at most one entry out per write,
    /// stale records dropped as they reach the front or, when they pile up, in one pass per `limit` writes.
    private func insert(_ value: Value, for key: Key, at now: NIODeadline, into state: inout State) {
        if state.entries[key] == nil {
            while state.entries.count >= limit, let oldest = state.order.popFirst() {
                if state.entries[oldest.key]?.write == oldest.write { state.entries[oldest.key] = nil }
            }
        }
        state.writes += 1
        let lifetime = timeToLive(value)
        state.entries[key] = Entry(value: value, expires: now + lifetime, lifetime: lifetime, write: state.writes)
        state.order.append((key, state.writes))
        if state.order.count > 2 * max(limit, 8) {
            let entries = state.entries
            state.order = CircularBuffer(state.order.lazy.filter { entries[$0.key]?.write == $0.write })
        }
    }
}
