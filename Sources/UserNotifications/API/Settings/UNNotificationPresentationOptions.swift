/// How to present a notification that arrives while the app is in the foreground, answered by
/// `userNotificationCenter(_:willPresent:withCompletionHandler:)`.
public struct UNNotificationPresentationOptions: OptionSet, Sendable {
    /// The options' bits.
    public let rawValue: UInt

    /// Options from their bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Apply the notification's badge.
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    /// Play the notification's sound.
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    /// Show the alert (deprecated by Apple in favour of `list` and `banner`).
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    /// Show the notification in the notification center.
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    /// Show the notification as a banner.
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)
}

extension UNNotificationPresentationOptions {
    /// How a notification is presented for an app that does not run, or whose delegate does not answer `willPresent`.
    package static let whenAppIsNotRunning: UNNotificationPresentationOptions = [.banner, .list, .sound, .badge]
}
