package import Foundation

/// Stored `DateComponents`: every field calendar triggers use, the time zone by identifier and the
/// calendar by its identifier (with Foundation's own coding of `Calendar.Identifier`).
package struct DateComponentsRecord: Codable, Hashable, Sendable {
    package var calendar: Calendar.Identifier?
    package var timeZone: String?
    package var era: Int?
    package var year: Int?
    package var month: Int?
    package var day: Int?
    package var hour: Int?
    package var minute: Int?
    package var second: Int?
    package var nanosecond: Int?
    package var weekday: Int?
    package var weekdayOrdinal: Int?
    package var quarter: Int?
    package var weekOfMonth: Int?
    package var weekOfYear: Int?
    package var yearForWeekOfYear: Int?
    package var isLeapMonth: Bool?

    package init(_ components: DateComponents) {
        calendar = components.calendar?.identifier
        timeZone = components.timeZone?.identifier
        era = components.era
        year = components.year
        month = components.month
        day = components.day
        hour = components.hour
        minute = components.minute
        second = components.second
        nanosecond = components.nanosecond
        weekday = components.weekday
        weekdayOrdinal = components.weekdayOrdinal
        quarter = components.quarter
        weekOfMonth = components.weekOfMonth
        weekOfYear = components.weekOfYear
        yearForWeekOfYear = components.yearForWeekOfYear
        isLeapMonth = components.isLeapMonth
    }

    package var dateComponents: DateComponents {
        var components = DateComponents(
            calendar: calendar.map { Calendar(identifier: $0) }, timeZone: timeZone.flatMap(TimeZone.init(identifier:)),
            era: era, year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            nanosecond: nanosecond, weekday: weekday, weekdayOrdinal: weekdayOrdinal, quarter: quarter,
            weekOfMonth: weekOfMonth, weekOfYear: weekOfYear, yearForWeekOfYear: yearForWeekOfYear
        )
        components.isLeapMonth = isLeapMonth
        return components
    }
}
