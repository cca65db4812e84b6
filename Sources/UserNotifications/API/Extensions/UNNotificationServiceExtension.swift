public import Foundation

/// The base of a notification service extension: changes the content of a remote notification (sent with
/// `mutable-content: 1`) before it is shown — decrypt the body, download and attach media.
///
/// ```swift
/// @main
/// final class NotificationService: UNNotificationServiceExtension {
///     var contentHandler: ((UNNotificationContent) -> Void)?
///     var bestAttempt: UNMutableNotificationContent?
///
///     override func didReceive(_ request: UNNotificationRequest,
///                              withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
///         self.contentHandler = contentHandler
///         bestAttempt = request.content.mutableCopy() as? UNMutableNotificationContent
///         bestAttempt?.title += " [modified]"
///         contentHandler(bestAttempt ?? request.content)
///     }
///
///     override func serviceExtensionTimeWillExpire() {
///         if let contentHandler, let bestAttempt { contentHandler(bestAttempt) }
///     }
/// }
/// ```
/// The extension has about 30 seconds to call the handler; then `serviceExtensionTimeWillExpire()` is its last
/// chance, after which the original content is shown.
///
/// On Linux the extension is an executable: mark the subclass `@main` and the inherited `main()` runs it for the
/// device daemon (see `main()`). A subclass that declares its own initializers must also implement `init()`.
open class UNNotificationServiceExtension: NSObject {
    /// An extension, made by the runtime when a notification needs it.
    public required override init() {
        super.init()
    }

    /// Called with the notification's request; call `contentHandler` once with the content to show.
    /// The default shows the request's content unchanged.
    open func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping @Sendable (UNNotificationContent) -> Void
    ) {
        contentHandler(request.content)
    }

    /// Called when the time to call the content handler is nearly up: call it now with your best attempt.
    open func serviceExtensionTimeWillExpire() {}
}
