/// When notification previews (title, body) are shown.
public enum UNShowPreviewsSetting: Int, Sendable {
    /// Always.
    case always = 0
    /// Only while the device is unlocked.
    case whenAuthenticated = 1
    /// Never.
    case never = 2
}
