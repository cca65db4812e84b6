public import Foundation

/// Fires a number of seconds after the request is scheduled, once or repeatedly.
///
/// ```swift
/// let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: true)  // every hour
/// ```
/// The interval must be greater than 0, and at least 60 seconds when repeating: the notification center
/// refuses other requests with `UNError.Code.notificationInvalidNoDate`.
open class UNTimeIntervalNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    /// The seconds between scheduling and firing (and between firings when repeating).
    public let timeInterval: TimeInterval
    /// When the request was scheduled, once the engine knows; nil for a trigger not yet scheduled.
    package let scheduledDate: Date?

    package init(timeInterval: TimeInterval, repeats: Bool, scheduledDate: Date?) {
        self.timeInterval = timeInterval
        self.scheduledDate = scheduledDate
        super.init(repeats: repeats)
    }

    /// A trigger firing `timeInterval` seconds after scheduling, and every `timeInterval` seconds after that
    /// when `repeats` is true.
    public convenience init(timeInterval: TimeInterval, repeats: Bool) {
        self.init(timeInterval: timeInterval, repeats: repeats, scheduledDate: nil)
    }

    /// The same trigger, remembering that its request was scheduled at `date` (so `nextTriggerDate()` counts
    /// from then): the engine's hook when it adds or restores a request.
    package func scheduled(at date: Date) -> UNTimeIntervalNotificationTrigger {
        UNTimeIntervalNotificationTrigger(timeInterval: timeInterval, repeats: repeats, scheduledDate: date)
    }

    /// When the trigger fires next: counted from when its request was scheduled, or from now for a trigger
    /// not scheduled yet; nil once a one-shot trigger has fired, or for an invalid interval.
    open func nextTriggerDate() -> Date? {
        let now = Date()
        return nextTriggerDate(scheduledAt: scheduledDate ?? now, after: now)
    }

    /// The first firing strictly after `date` of a request scheduled at `start`: `start + n × timeInterval`
    /// with n = 1 for a one-shot trigger, any n ≥ 1 when repeating. Nil when there is none or the interval
    /// is invalid.
    package func nextTriggerDate(scheduledAt start: Date, after date: Date) -> Date? {
        guard timeInterval.isFinite, timeInterval > 0 else { return nil }
        let first = start.addingTimeInterval(timeInterval)
        if first > date { return first }
        guard repeats else { return nil }
        var periods = ((date.timeIntervalSince(start)) / timeInterval).rounded(.down) + 1
        var next = start.addingTimeInterval(periods * timeInterval)
        while next <= date {  // guards against rounding
            periods += 1
            next = start.addingTimeInterval(periods * timeInterval)
        }
        return next
    }

    override package func nextFireDate(after date: Date, scheduledAt scheduledDate: Date, calendar: Calendar) -> Date? {
        nextTriggerDate(scheduledAt: self.scheduledDate ?? scheduledDate, after: date)
    }

    /// Throws `notificationInvalidNoDate` when the interval is not greater than 0, or under 60 s while repeating.
    override package func validate() throws(UNError) {
        guard timeInterval.isFinite, timeInterval > 0 else {
            throw UNError(.notificationInvalidNoDate, "the time interval must be greater than 0, got \(timeInterval)")
        }
        guard !repeats || timeInterval >= 60 else {
            throw UNError(.notificationInvalidNoDate, "a repeating time interval must be at least 60 seconds, got \(timeInterval)")
        }
    }

    /// Time-interval triggers are equal when interval and repetition are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? UNTimeIntervalNotificationTrigger else { return false }
        return timeInterval == other.timeInterval
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(repeats)
        hasher.combine(timeInterval)
        return hasher.finalize()
    }
}
