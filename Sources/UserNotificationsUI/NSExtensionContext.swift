public import UserNotifications

/// The host's side of a content extension, as the extension sees it (`UIViewController.extensionContext`): the
/// calls that ask the notification's interface to change, and the actions it shows (iOS 12's settable
/// `notificationActions`).
@MainActor
open class NSExtensionContext {
    /// What the extension asked the host to do.
    package enum Request: String, Equatable, Sendable {
        case mediaPlayingStarted, mediaPlayingPaused, performNotificationDefaultAction, dismissNotificationContentExtension
        case actionsChanged
    }

    /// Receives each request; the extension process's host sets it.
    package var onRequest: (@MainActor (Request) -> Void)?

    /// The actions shown under the interface; the category's at first. Setting them changes them at once.
    public var notificationActions: [UNNotificationAction] = [] {
        didSet { onRequest?(.actionsChanged) }
    }

    public init() {}

    /// Tells the host that the extension's media started playing (the play/pause button shows pause).
    public func mediaPlayingStarted() { onRequest?(.mediaPlayingStarted) }

    /// Tells the host that the media paused (the button shows play).
    public func mediaPlayingPaused() { onRequest?(.mediaPlayingPaused) }

    /// Opens the app as a tap on the notification would: the app's delegate gets the default action's response.
    public func performNotificationDefaultAction() { onRequest?(.performNotificationDefaultAction) }

    /// Closes the notification's interface.
    public func dismissNotificationContentExtension() { onRequest?(.dismissNotificationContentExtension) }
}
