package import Foundation

/// The machine's Focus, as iOS 15's Focus (Settings › Focus): while it is on, notifications are silenced — listed
/// without a banner or a sound — except those it lets through: critical alerts, time-sensitive ones (when the Focus
/// allows them and the app's setting does), the apps it allows, and those an app's Focus filter matches.
///
/// It is on when turned on by hand (until a time, or until turned off), during one of its schedules, or while the
/// desktop's own do-not-disturb is on and the Focus follows it. `herald device focus` changes it.
package struct Focus: Codable, Sendable, Hashable {
    /// What the person calls it; it is shown with what it silenced.
    package var name = "Do Not Disturb"
    /// Turned on by hand.
    package var isOn = false
    /// Turned on by hand until this time (nil: until turned off).
    package var until: Date?
    /// When it turns itself on.
    package var schedules: [Schedule] = []
    /// On while the desktop's notification server holds its own do-not-disturb.
    package var followsDesktop = true
    /// Apps whose notifications alert anyway.
    package var allowedApps: Set<String> = []
    /// Time-sensitive notifications alert anyway (iOS's default for a new Focus).
    package var allowsTimeSensitive = true
    /// Focus filters (iOS 16): per app, the `filterCriteria` values that alert; the app's other notifications are
    /// silenced, even when the app is allowed.
    package var filters: [String: Set<String>] = [:]
    /// People whose messages (communication notifications) alert, by name or handle.
    package var allowedPeople: Set<String> = []

    package init() {}

    private enum CodingKeys: String, CodingKey {
        case name, isOn, until, schedules, followsDesktop, allowedApps, allowsTimeSensitive, filters, allowedPeople
    }

    /// Reads a Focus written by any version: fields added later take their defaults.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name) ?? name
        isOn = try container.decodeIfPresent(Bool.self, forKey: .isOn) ?? isOn
        until = try container.decodeIfPresent(Date.self, forKey: .until)
        schedules = try container.decodeIfPresent([Schedule].self, forKey: .schedules) ?? []
        followsDesktop = try container.decodeIfPresent(Bool.self, forKey: .followsDesktop) ?? followsDesktop
        allowedApps = try container.decodeIfPresent(Set<String>.self, forKey: .allowedApps) ?? []
        allowsTimeSensitive = try container.decodeIfPresent(Bool.self, forKey: .allowsTimeSensitive) ?? allowsTimeSensitive
        filters = try container.decodeIfPresent([String: Set<String>].self, forKey: .filters) ?? [:]
        allowedPeople = try container.decodeIfPresent(Set<String>.self, forKey: .allowedPeople) ?? []
    }

    /// Whether a message from `sender` alerts: the Focus allows its name or handle.
    package func allows(_ sender: CommunicationRecord) -> Bool {
        allowedPeople.contains(sender.senderName) || sender.senderHandle.map(allowedPeople.contains) == true
    }

    /// A weekly time span, like "weekdays 22:00–07:00". It may cross midnight: it then belongs to the day it starts.
    package struct Schedule: Codable, Sendable, Hashable {
        /// Days it starts on, 1 (Sunday) to 7 (Saturday), as `Calendar`'s `weekday`.
        package var weekdays: Set<Int>
        /// Minutes after midnight.
        package var start: Int
        package var end: Int

        package init(weekdays: Set<Int>, start: Int, end: Int) {
            self.weekdays = weekdays
            self.start = start
            self.end = end
        }

        /// Whether `date` falls in it.
        package func contains(_ date: Date, calendar: Calendar) -> Bool {
            let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
            guard let weekday = parts.weekday else { return false }
            let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
            if start < end { return weekdays.contains(weekday) && (start..<end).contains(minute) }
            let yesterday = weekday == 1 ? 7 : weekday - 1
            return (weekdays.contains(weekday) && minute >= start) || (weekdays.contains(yesterday) && minute < end)
        }
    }

    /// Why it is on at `now`, or nil when it is off.
    package func reason(at now: Date, calendar: Calendar, desktopDoNotDisturb: Bool) -> Reason? {
        if isOn, until.map({ now < $0 }) ?? true { return .manual(until: until) }
        if schedules.contains(where: { $0.contains(now, calendar: calendar) }) { return .schedule }
        if followsDesktop, desktopDoNotDisturb { return .desktop }
        return nil
    }

    package enum Reason: Sendable, Hashable {
        case manual(until: Date?)
        case schedule
        case desktop
    }

    /// A Focus that is on, as surfaces show it: its name and why it is on.
    package struct Status: Sendable, Hashable {
        package var name: String
        package var reason: Reason

        package init(name: String, reason: Reason) {
            self.name = name
            self.reason = reason
        }
    }

    /// Its status at `now`, nil when it is off.
    package func status(at now: Date, calendar: Calendar, desktopDoNotDisturb: Bool) -> Status? {
        reason(at: now, calendar: calendar, desktopDoNotDisturb: desktopDoNotDisturb).map { Status(name: name, reason: $0) }
    }
}
