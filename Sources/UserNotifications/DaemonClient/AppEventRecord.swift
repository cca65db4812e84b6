import Foundation

/// A response as the daemon routes it to the app: the notification, the action and any typed text.
package struct ResponseRecord: Codable, Hashable, Sendable {
    package var notification: NotificationRecord
    package var actionIdentifier: String
    /// The text typed into a `UNTextInputNotificationAction`.
    package var userText: String?

    package init(notification: NotificationRecord, actionIdentifier: String, userText: String? = nil) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
        self.userText = userText
    }

    /// A `UNTextInputNotificationResponse` when text was typed, else a `UNNotificationResponse`.
    package var response: UNNotificationResponse {
        if let userText {
            return UNTextInputNotificationResponse(notification: notification.notification, actionIdentifier: actionIdentifier, userText: userText)
        }
        return UNNotificationResponse(notification: notification.notification, actionIdentifier: actionIdentifier)
    }
}

/// Something the daemon hands an app, kept in a queue until the app has it: a response to one of its
/// notifications, or a background push (`content-available`) to wake it.
package enum AppEventRecord: Codable, Hashable, Sendable {
    case response(ResponseRecord)
    /// A background push: the whole payload.
    case remoteNotification(userInfo: [String: PropertyListValue])
    /// The person asked for the app's own notification settings: `userNotificationCenter(_:openSettingsFor:)`, with the
    /// notification it was asked from, if any.
    case openSettings(NotificationRecord?)
}
