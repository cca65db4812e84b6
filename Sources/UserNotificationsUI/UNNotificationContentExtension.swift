public import Foundation
public import UserNotifications

/// A notification content extension: a custom interface for notifications of some categories.
///
/// Only `didReceive(_:)` is required; the others have the behaviour Apple gives an extension that does not
/// implement them (`didReceive(_:completionHandler:)` dismisses and forwards the action to the app, no media
/// button).
///
/// ```swift
/// final class NotificationViewController: NSObject, UNNotificationContentExtension {
///     var shown: String = ""
///     func didReceive(_ notification: UNNotification) {
///         shown = notification.request.content.body
///     }
/// }
/// ```
@MainActor
public protocol UNNotificationContentExtension: AnyObject {
    /// Called with each notification to show, the first and any that arrive while the interface is up.
    func didReceive(_ notification: UNNotification)

    /// Called when the user picks one of the category's actions; call `completion` with what to do next.
    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void)

    /// The play/pause button the extension wants for its media.
    var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType { get }

    /// Where the play/pause button goes, in the extension's view coordinates.
    var mediaPlayPauseButtonFrame: CGRect { get }

    /// Called when the user taps the play button.
    func mediaPlay()

    /// Called when the user taps the pause button.
    func mediaPause()
}

extension UNNotificationContentExtension {
    /// Dismisses the interface and forwards the action to the app, as when the method is not implemented.
    public func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        completion(.dismissAndForwardAction)
    }

    /// No media button.
    public var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType { .none }

    /// No frame (the system places its button).
    public var mediaPlayPauseButtonFrame: CGRect { .zero }

    /// Does nothing.
    public func mediaPlay() {}

    /// Does nothing.
    public func mediaPause() {}
}
