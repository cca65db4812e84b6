/// What an app asks permission for in `requestAuthorization(options:)`.
public struct UNAuthorizationOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: UInt

    /// Options from their bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Updating the app's badge.
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    /// Playing sounds.
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    /// Showing alerts.
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    /// Showing notifications in CarPlay.
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    /// Playing sounds for critical alerts, past Do Not Disturb and the ringer switch.
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    /// The app has its own notification settings screen (a button in the system's settings opens it).
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    /// Delivering quietly to the notification center without asking first.
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
    /// Siri may announce notifications (iOS 13); since iOS 15 always included, and asked for in vain.
    @available(*, deprecated, message: "announcement authorization is always included")
    public static let announcement = UNAuthorizationOptions(rawValue: 1 << 7)
    /// Time-sensitive notifications (iOS 15.0 only); since then the app's time-sensitive entitlement decides.
    @available(*, deprecated, message: "use the time-sensitive entitlement")
    public static let timeSensitive = UNAuthorizationOptions(rawValue: 1 << 8)
}
