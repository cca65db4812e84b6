public import Foundation

/// A notification to schedule: an identifier, the content and what triggers it.
///
/// ```swift
/// let request = UNNotificationRequest(identifier: "reminder", content: content,
///                                     trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false))
/// try await UNUserNotificationCenter.current().add(request)
/// ```
/// Adding a request whose identifier is already pending or delivered replaces that notification.
open class UNNotificationRequest: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable, immutable value.
    /// The request's identifier, chosen by the app.
    public let identifier: String
    /// The content, an immutable copy of what was given.
    public let content: UNNotificationContent
    /// What makes the notification fire; nil delivers it right away.
    public let trigger: UNNotificationTrigger?

    /// A request for `content` (copied, so later changes to a mutable content do not affect it).
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content.copy() as? UNNotificationContent ?? UNNotificationContent(storage: content.values)
        self.trigger = trigger
    }

    /// The request itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Requests are equal when identifier, content and trigger are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationRequest else { return false }
        return identifier == other.identifier && content.isEqual(other.content) && trigger == other.trigger
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(identifier)
        hasher.combine(content)
        return hasher.finalize()
    }
}
