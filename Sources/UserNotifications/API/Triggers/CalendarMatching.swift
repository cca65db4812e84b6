package import Foundation

/// The date math of calendar triggers, on top of `Calendar.nextDate(after:matching:…)`.
///
/// Foundation is asked with `.nextTimePreservingSmallerComponents` and `.first`, then each answer is checked:
/// - A day that does not exist (the 31st of a 30-day month, February 29 of a common year, a fifth Friday)
///   comes back from Foundation as the next day that does; its date fields then differ from the
///   components, and the search goes on after it, so such components fire only when the day exists.
/// - A time inside a daylight-saving gap comes back shifted by the gap (02:30 → 03:30): kept, the day is
///   not skipped.
/// - A time that happens twice on a fall-back day: Foundation on Linux answers the second occurrence when
///   asked from between the two (or from just after the first), despite `.first` (swift-foundation in
///   Swift 6.3), so when the components name an hour the second occurrence is skipped here: a daily 01:30
///   fires once, at the first. Without an hour (`minute: 30`, hourly) both occurrences fire, an hour apart.
/// - Components carrying a `timeZone` are matched in that time zone (Foundation ignores a components'
///   time zone in `nextDate`), those without one in the given calendar's.
package enum CalendarMatching {
    /// How many Foundation answers may be passed over before giving up (impossible components such as
    /// February 30 are answered by a search that never matches).
    static let maximumAttempts = 500

    private static let dateFields: [Calendar.Component] = [
        .era, .year, .month, .day, .weekday, .weekdayOrdinal, .weekOfMonth, .weekOfYear, .yearForWeekOfYear,
    ]
    private static let timeFields: [Calendar.Component] = [.hour, .minute, .second, .nanosecond]

    /// Whether `components` has at least one date or time field.
    package static func hasFields(_ components: DateComponents) -> Bool {
        (dateFields + timeFields + [.quarter]).contains { components.value(for: $0) != nil }
    }

    /// The first date strictly after `start` matching `components` (see the type's notes), or nil.
    package static func nextDate(after start: Date, matching components: DateComponents, calendar: Calendar) -> Date? {
        guard hasFields(components) else { return nil }
        var searchCalendar = components.calendar ?? calendar
        searchCalendar.timeZone = components.timeZone ?? calendar.timeZone
        var fields = components
        fields.calendar = nil
        fields.timeZone = nil

        var after = start
        for _ in 0..<maximumAttempts {
            guard
                let candidate = searchCalendar.nextDate(
                    after: after, matching: fields,
                    matchingPolicy: .nextTimePreservingSmallerComponents,
                    repeatedTimePolicy: .first),
                candidate > after
            else { return nil }
            let repeatedHour = fields.hour != nil && isSecondOccurrence(candidate, in: searchCalendar)
            if dateFieldsMatch(candidate, fields, in: searchCalendar), !repeatedHour {
                return candidate
            }
            after = candidate
        }
        return nil
    }

    private static func dateFieldsMatch(_ date: Date, _ fields: DateComponents, in calendar: Calendar) -> Bool {
        let requested = dateFields.filter { fields.value(for: $0) != nil }
        guard !requested.isEmpty || fields.isLeapMonth != nil else { return true }
        let actual = calendar.dateComponents(Set(requested + [.month]), from: date)
        if let leap = fields.isLeapMonth, leap != (actual.isLeapMonth ?? false) { return false }
        return requested.allSatisfy { actual.value(for: $0) == fields.value(for: $0) }
    }

    /// Whether the wall-clock time of `date` already happened earlier (the repeated hour of a fall-back day).
    private static func isSecondOccurrence(_ date: Date, in calendar: Calendar) -> Bool {
        let wallClock = calendar.dateComponents([.era, .year, .month, .day, .hour, .minute, .second], from: date)
        guard let first = calendar.date(from: wallClock) else { return false }
        // Offsets change by at least 30 minutes; a second's slack absorbs the dropped nanoseconds.
        return date.timeIntervalSince(first) >= 1
    }
}
