public import Foundation

/// A delivered notification: the request and when it was delivered.
open class UNNotification: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable, immutable value.
    /// When the notification was delivered.
    public let date: Date
    /// The request that was delivered.
    public let request: UNNotificationRequest

    package init(request: UNNotificationRequest, date: Date) {
        self.request = request
        self.date = date
    }

    /// The notification itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Notifications are equal when request and date are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotification else { return false }
        return date == other.date && request.isEqual(other.request)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(date)
        hasher.combine(request)
        return hasher.finalize()
    }
}
