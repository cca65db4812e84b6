/// How alerts look when the app is not in the foreground.
public enum UNAlertStyle: Int, Sendable {
    /// No alert.
    case none = 0
    /// A banner that goes away by itself.
    case banner = 1
    /// An alert that stays until the user acts.
    case alert = 2
}
