/// Whether the app may post notifications.
public enum UNAuthorizationStatus: Int, Sendable {
    /// The user has not been asked yet.
    case notDetermined = 0
    /// The user refused.
    case denied = 1
    /// The user allowed notifications.
    case authorized = 2
    /// Notifications are delivered quietly until the user decides.
    case provisional = 3
    /// Allowed for a limited time (App Clips).
    case ephemeral = 4
}
