public import Foundation

extension NSString {
    /// The localized string for `key` from the app's `Localizable.strings`, formatted with `arguments`
    /// (`%@`, `%d`, `%1$@`, …); the key itself when there is no such string.
    ///
    /// ```swift
    /// content.body = NSString.localizedUserNotificationString(forKey: "NEW_MESSAGES", arguments: [count])
    /// ```
    public class func localizedUserNotificationString(forKey key: String, arguments: [Any]?) -> String {
        UserNotificationStrings.localizedString(forKey: key, arguments: arguments)
    }
}

extension String {
    /// The localized string for `key` from the app's `Localizable.strings`, formatted with `arguments`
    /// (`%@`, `%d`, `%1$@`, …); the key itself when there is no such string.
    public static func localizedUserNotificationString(forKey key: String, arguments: [Any]?) -> String {
        UserNotificationStrings.localizedString(forKey: key, arguments: arguments)
    }
}
