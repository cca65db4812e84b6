import NIOCore
import Synchronization

/// A bounded map whose entries are trusted for a fixed time, shared across event loops.
final class ExpiringCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var expires: NIODeadline
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let timeToLive: TimeAmount
    private let limit: Int

    init(timeToLive: TimeAmount, limit: Int) {
        self.timeToLive = timeToLive
        self.limit = limit
    }

    /// The value when present and not yet expired.
    func value(for key: Key) -> Value? {
        let now = NIODeadline.now()
        return entries.withLock { entries in
            guard let entry = entries[key], entry.expires > now else { return nil }
            return entry.value
        }
    }

    /// Remembers `value`; when full, expired entries go first, then arbitrary ones, never all at once.
    func set(_ value: Value, for key: Key) {
        let now = NIODeadline.now()
        entries.withLock { entries in
            if entries.count >= limit, entries[key] == nil {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= limit {
                    entries.remove(at: entries.startIndex)
                }
            }
            entries[key] = Entry(value: value, expires: now + timeToLive)
        }
    }
}
