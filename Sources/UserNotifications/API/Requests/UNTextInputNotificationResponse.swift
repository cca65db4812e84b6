/// The response to a `UNTextInputNotificationAction`: the text the user typed.
open class UNTextInputNotificationResponse: UNNotificationResponse, @unchecked Sendable {
    /// What the user typed.
    public let userText: String

    package init(notification: UNNotification, actionIdentifier: String, userText: String) {
        self.userText = userText
        super.init(notification: notification, actionIdentifier: actionIdentifier)
    }

    /// Text responses are equal when notification, action and text are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? UNTextInputNotificationResponse else { return false }
        return userText == other.userText
    }
}
