/// The play/pause button a content extension with media asks for.
public enum UNNotificationContentExtensionMediaPlayPauseButtonType: UInt, Sendable {
    /// No button.
    case none = 0
    /// The system's button, beside the content.
    case `default` = 1
    /// The system's button over the content, hidden while playing.
    case overlay = 2
}
