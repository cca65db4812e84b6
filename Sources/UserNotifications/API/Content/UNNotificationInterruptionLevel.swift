/// How much a notification may interrupt the user.
public enum UNNotificationInterruptionLevel: UInt, Sendable {
    /// Added to the notification list quietly; no sound, no screen wake.
    case passive = 0
    /// Presented immediately, with sound and screen wake (the default).
    case active = 1
    /// Presented immediately, breaking through Focus; needs the Time Sensitive setting.
    case timeSensitive = 2
    /// Presented immediately with sound, past Focus and the ringer switch; needs critical-alert authorization.
    case critical = 3
}

extension UNNotificationInterruptionLevel {
    /// The case's name, as Apple spells it (`timeSensitive`), for JSON.
    package var name: String {
        switch self {
        case .passive: "passive"
        case .active: "active"
        case .timeSensitive: "timeSensitive"
        case .critical: "critical"
        }
    }
}
