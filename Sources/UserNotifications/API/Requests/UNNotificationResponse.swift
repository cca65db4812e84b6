public import Foundation

/// The action the user took on a notification: opened it (`UNNotificationDefaultActionIdentifier`),
/// dismissed it (`UNNotificationDismissActionIdentifier`, with a `customDismissAction` category) or picked
/// one of its category's actions.
open class UNNotificationResponse: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable, immutable value.
    /// The notification acted on.
    public let notification: UNNotification
    /// The identifier of the action taken.
    public let actionIdentifier: String

    package init(notification: UNNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }

    /// The response itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Responses are equal when notification and action are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationResponse, type(of: other) == type(of: self) else { return false }
        return actionIdentifier == other.actionIdentifier && notification.isEqual(other.notification)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(actionIdentifier)
        hasher.combine(notification)
        return hasher.finalize()
    }
}
