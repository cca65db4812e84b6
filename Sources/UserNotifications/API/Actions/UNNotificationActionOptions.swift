/// How an action behaves when the user picks it.
public struct UNNotificationActionOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: UInt

    /// Options from their bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// The device must be unlocked to perform the action.
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    /// The action is destructive and shown as such.
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    /// The action brings the app to the foreground.
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)
}
