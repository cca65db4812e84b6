/// The value of the `apns-priority` header: 10, 5 or 1.
public struct Priority: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }

    /// Send now (the default).
    public static let immediate = Priority(rawValue: 10)
    /// Send with the device's power in mind; may be grouped and delayed.
    public static let powerConsiderate = Priority(rawValue: 5)
    /// Prioritise the device's power over everything; never wakes the device.
    public static let powerPrioritized = Priority(rawValue: 1)

    public var isKnown: Bool { rawValue == 10 || rawValue == 5 || rawValue == 1 }
}
