public import Foundation

/// Fires when the date matches the given components, once or every time they match.
///
/// ```swift
/// var morning = DateComponents()
/// morning.hour = 8
/// morning.minute = 30
/// morning.weekday = 2  // 1 = Sunday, so Mondays
/// let trigger = UNCalendarNotificationTrigger(dateMatching: morning, repeats: true)
/// ```
/// Components without a `timeZone` follow the device's time zone (08:30 stays 08:30 local time, across
/// daylight-saving changes and travel); components with one fire at that instant wherever the device is.
/// A time skipped by a daylight-saving change fires at the same distance past the change (02:30 on a
/// spring-forward day fires at 03:30); a time that happens twice fires at the first. Components that only
/// some months or years have (the 31st, February 29) fire only when they exist. A one-shot date in the past
/// never fires.
open class UNCalendarNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The components the date must match.
    public let dateComponents: DateComponents

    /// A trigger firing when the date matches `dateComponents` — the next time only, or every time when
    /// `repeats` is true.
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        self.dateComponents = dateComponents
        super.init(repeats: repeats)
    }

    /// The next date matching the components, in the current calendar and time zone; nil when none will.
    open func nextTriggerDate() -> Date? {
        nextTriggerDate(after: Date(), calendar: .current)
    }

    /// The first date strictly after `date` matching the components, reading components that carry no time
    /// zone in `calendar`'s time zone; nil when none will (a past one-shot date, impossible components).
    package func nextTriggerDate(after date: Date, calendar: Calendar) -> Date? {
        CalendarMatching.nextDate(after: date, matching: dateComponents, calendar: calendar)
    }

    override package func nextFireDate(after date: Date, scheduledAt scheduledDate: Date, calendar: Calendar) -> Date? {
        nextTriggerDate(after: date, calendar: calendar)
    }

    /// Throws `notificationInvalidNoDate` when the components have no date or time field at all.
    override package func validate() throws(UNError) {
        guard CalendarMatching.hasFields(dateComponents) else {
            throw UNError(.notificationInvalidNoDate, "the calendar trigger's date components have no date or time field")
        }
    }

    /// Calendar triggers are equal when components and repetition are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? UNCalendarNotificationTrigger else { return false }
        return dateComponents == other.dateComponents
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(repeats)
        hasher.combine(dateComponents)
        return hasher.finalize()
    }
}
