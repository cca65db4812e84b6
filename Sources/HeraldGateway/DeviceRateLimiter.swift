import HeraldWire
import NIOCore
import Synchronization

/// A token bucket per device token: APNs answers 429 TooManyRequests to a provider that sends one
/// device too many notifications too quickly.
final class DeviceRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: NIODeadline
    }

    private let buckets = Mutex<[DeviceToken: Bucket]>([:])
    private let ratePerSecond: Double
    private let burst: Double
    private static let bucketLimit = 1_000_000

    init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
    }

    /// Takes one request from `token`'s bucket; false when it is empty.
    func admit(_ token: DeviceToken, now: NIODeadline = .now()) -> Bool {
        buckets.withLock { buckets in
            if buckets.count >= Self.bucketLimit, buckets[token] == nil {
                // Buckets that have refilled hold no debt; forgetting them changes nothing.
                buckets = buckets.filter { self.refilled($0.value, at: now) < burst }
                if buckets.count >= Self.bucketLimit { buckets.remove(at: buckets.startIndex) }
            }
            // One hash lookup, the bucket changed in place.
            return take(from: &buckets[token, default: Bucket(tokens: burst, updated: now)], at: now)
        }
    }

    private func take(from bucket: inout Bucket, at now: NIODeadline) -> Bool {
        bucket.tokens = refilled(bucket, at: now)
        bucket.updated = now
        guard bucket.tokens >= 1 else { return false }
        bucket.tokens -= 1
        return true
    }

    private func refilled(_ bucket: Bucket, at now: NIODeadline) -> Double {
        let elapsed = Double((now - bucket.updated).nanoseconds) / 1e9
        return min(burst, bucket.tokens + max(0, elapsed) * ratePerSecond)
    }
}
