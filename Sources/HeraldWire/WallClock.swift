public import struct Foundation.Date

/// Tells the wall-clock time. Injected into everything that compares against epoch seconds
/// (provider-token age, expiration, 410 timestamps) so tests control time without sleeping.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
