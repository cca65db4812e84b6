import NIOCore

/// A token bucket kept on one event loop: `burst` requests at once, then `perSecond`. A device link's registrations
/// and unregistrations go through one, so that a device cannot churn tokens in the store as fast as it can send.
struct RequestBudget {
    private let burst: Double
    private let perSecond: Double
    private var tokens: Double
    private var updated: NIODeadline?

    init(burst: Int, perSecond: Double) {
        self.burst = Double(burst)
        self.perSecond = perSecond
        tokens = Double(burst)
    }

    /// Takes one request's token; false when none is left.
    mutating func take(at now: NIODeadline) -> Bool {
        if let updated {
            let elapsed = Double((now - updated).nanoseconds) / 1e9
            tokens = min(burst, tokens + max(0, elapsed) * perSecond)
        }
        updated = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// A rate for a message: "4", "0.5".
    static func describe(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }
}
