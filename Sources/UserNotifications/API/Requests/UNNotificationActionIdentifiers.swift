/// The action identifier of a response when the user opened the notification (tapped or clicked it).
public let UNNotificationDefaultActionIdentifier: String = "com.apple.UNNotificationDefaultActionIdentifier"

/// The action identifier of a response when the user dismissed the notification; reported only for
/// categories with the `customDismissAction` option.
public let UNNotificationDismissActionIdentifier: String = "com.apple.UNNotificationDismissActionIdentifier"
