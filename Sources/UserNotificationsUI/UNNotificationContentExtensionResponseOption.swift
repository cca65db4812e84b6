/// What to do after a content extension handled an action (`didReceive(_:completionHandler:)`).
public enum UNNotificationContentExtensionResponseOption: UInt, Sendable {
    /// Keep the notification's interface on screen.
    case doNotDismiss = 0
    /// Dismiss the notification's interface.
    case dismiss = 1
    /// Dismiss the interface and pass the action on to the app's delegate.
    case dismissAndForwardAction = 2
}
