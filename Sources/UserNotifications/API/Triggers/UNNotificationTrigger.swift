public import Foundation

/// What makes a notification fire: the base of the time-interval, calendar, location and push triggers.
///
/// Triggers are immutable. Apple's initializers raise an exception for an invalid trigger (an interval of
/// 0, or under 60 s when repeating); these accept anything, and the notification center refuses the request
/// when it is added (`validate()`).
open class UNNotificationTrigger: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    /// Whether the trigger fires again after firing.
    public let repeats: Bool

    package init(repeats: Bool) {
        self.repeats = repeats
    }

    /// Throws `UNError` `notificationInvalidNoDate` when the trigger can never fire as asked (see the subclasses).
    package func validate() throws(UNError) {}

    /// When the trigger fires next, strictly after `date`, for a request scheduled at `scheduledDate`, with
    /// components that carry no time zone read in `calendar`'s; nil when it never fires again or is not
    /// time-based (location, push).
    package func nextFireDate(after date: Date, scheduledAt scheduledDate: Date, calendar: Calendar) -> Date? {
        nil
    }

    /// The trigger itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Triggers are equal when they are of the same class with the same values.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationTrigger, type(of: other) == type(of: self) else { return false }
        return repeats == other.repeats
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        repeats.hashValue
    }
}
