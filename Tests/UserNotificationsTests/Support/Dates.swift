import Foundation

/// Dates written as ISO 8601 with an offset, and calendars in a given time zone.
enum Dates {
    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        guard let date = formatter.date(from: text) else { fatalError("bad ISO 8601 date \(text)") }
        return date
    }

    static func calendar(_ timeZone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone)!
        return calendar
    }

    static let newYork = calendar("America/New_York")
}
