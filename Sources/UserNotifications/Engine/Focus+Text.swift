package import Foundation

extension Focus.Schedule {
    private static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Reads `DAYS HH:MM-HH:MM`, where DAYS is `daily`, `weekdays`, `weekends` or day names joined by commas
    /// (`mon,wed,fri`) or a range (`mon-fri`): "weekdays 22:00-07:00".
    /// - Throws: ``Focus/TextError`` saying what to write.
    package init(parsing text: String) throws(Focus.TextError) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        let example = "write it like 'weekdays 22:00-07:00' or 'mon,wed 09:00-17:00'"
        guard parts.count == 2 else { throw Focus.TextError("'\(text)' is not a schedule: \(example)") }
        let times = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard times.count == 2, let start = ClockTime.minutes(times[0]), let end = ClockTime.minutes(times[1]) else {
            throw Focus.TextError("'\(parts[1])' is not a time span: \(example)")
        }
        guard start != end else { throw Focus.TextError("'\(parts[1])' starts and ends at the same time") }
        self.init(weekdays: try Self.days(String(parts[0]).lowercased()), start: start, end: end)
    }

    private static func days(_ text: String) throws(Focus.TextError) -> Set<Int> {
        switch text {
        case "daily": return Set(1...7)
        case "weekdays": return Set(2...6)
        case "weekends": return [1, 7]
        default: break
        }
        var days: Set<Int> = []
        for item in text.split(separator: ",") {
            let ends = item.split(separator: "-").map { dayNames.firstIndex(of: String($0.prefix(3))) }
            guard !ends.isEmpty, ends.count <= 2, let first = ends.first ?? nil, let last = ends.last ?? nil else {
                throw Focus.TextError("'\(item)' is not a day: use daily, weekdays, weekends, or sun mon tue wed thu fri sat (like mon-fri)")
            }
            var day = first
            while true {
                days.insert(day + 1)
                if day == last { break }
                day = (day + 1) % 7
            }
        }
        return days
    }

    /// "weekdays 22:00–07:00", as it is written.
    package var text: String {
        let days: String =
            switch weekdays {
            case Set(1...7): "daily"
            case Set(2...6): "weekdays"
            case [1, 7]: "weekends"
            default: weekdays.sorted().map { Self.dayNames[$0 - 1] }.joined(separator: ",")
            }
        return "\(days) \(ClockTime.text(start))-\(ClockTime.text(end))"
    }
}

/// A time of day as people write it, `HH:MM` (24-hour), held as minutes after midnight.
package enum ClockTime {
    package static func minutes(_ text: some StringProtocol) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    package static func text(_ minutes: Int) -> String {
        String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}

extension Focus {
    /// A mistake in what a person wrote for the Focus, with what to write instead.
    package struct TextError: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// The end of a Focus turned on "until TIME": `HH:MM` (the next such time, today or tomorrow), a duration (`30m`,
    /// `2h`, `1h30m`), or an ISO 8601 date and time (`2026-12-01T08:00:00Z`); it must be in the future.
    package static func end(parsing text: String, now: Date, calendar: Calendar) throws(TextError) -> Date {
        if let minutes = ClockTime.minutes(text) {
            let parts = DateComponents(hour: minutes / 60, minute: minutes % 60, second: 0)
            if let date = calendar.nextDate(after: now, matching: parts, matchingPolicy: .nextTime) { return date }
        }
        if let seconds = duration(text), seconds > 0 { return now.addingTimeInterval(seconds) }
        if let date = try? Date(text, strategy: .iso8601) {
            guard date > now else { throw TextError("\(text) has passed; give a time to come") }
            return date
        }
        throw TextError("'\(text)' is not a time: write HH:MM (like 18:30), a duration (like 45m or 2h), or an ISO 8601 date and time")
    }

    /// `1h30m` → 5,400 s; nil unless the text is only numbers with `h`, `m` or `s` after them.
    private static func duration(_ text: String) -> TimeInterval? {
        var total: TimeInterval = 0
        var number = ""
        for character in text {
            if character.isASCII, character.isNumber {
                number.append(character)
                continue
            }
            let unit: TimeInterval
            switch character {
            case "h": unit = 3600
            case "m": unit = 60
            case "s": unit = 1
            default: return nil
            }
            guard let value = Double(number) else { return nil }
            total += value * unit
            number = ""
        }
        return number.isEmpty && total > 0 ? total : nil
    }
}
