public import Foundation

/// Where a notification is on its way to the device: the delivery log's timeline.
public struct Delivery: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Accepted and not yet acknowledged by the device.
        case pending
        /// The device acknowledged it.
        case delivered
        /// It will never be delivered; ``Delivery/discardReason`` says why.
        case discarded
    }

    public var state: State
    /// When it was kept for an offline device (nil: the device was online, or it was never kept).
    public var storedAt: Date?
    public var deliveredAt: Date?
    public var discardedAt: Date?
    public var discardReason: DiscardReason?

    public init(
        state: State = .pending,
        storedAt: Date? = nil,
        deliveredAt: Date? = nil,
        discardedAt: Date? = nil,
        discardReason: DiscardReason? = nil
    ) {
        self.state = state
        self.storedAt = storedAt
        self.deliveredAt = deliveredAt
        self.discardedAt = discardedAt
        self.discardReason = discardReason
    }
}

/// Why a notification was discarded.
public struct DiscardReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Its `apns-expiration` passed (or was 0) before the device came online.
    public static let expired = DiscardReason(rawValue: "expired")
    /// A newer notification replaced it: the `latest` policy, or the same collapse id.
    public static let coalesced = DiscardReason(rawValue: "coalesced")
    /// The app was removed from the device before it was delivered.
    public static let unregistered = DiscardReason(rawValue: "unregistered")
    /// The `all` policy's cap was reached; the oldest kept notification made room.
    public static let overflow = DiscardReason(rawValue: "overflow")
    /// A fault rule took the request: it was answered as the rule says and never delivered (docs/faults.md).
    public static let faulted = DiscardReason(rawValue: "faulted")

    public var description: String { rawValue }
}
