/// The state of one notification feature in the user's settings.
public enum UNNotificationSetting: Int, Sendable {
    /// The feature does not exist for this app or device.
    case notSupported = 0
    /// The user turned the feature off.
    case disabled = 1
    /// The feature is on.
    case enabled = 2
}
