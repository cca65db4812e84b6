package import Foundation

/// iOS 15's Scheduled Summary (Settings › Notifications › Scheduled Summary): the passive and active notifications of
/// the apps in it wait, and arrive together at its times as one summary, most relevant first (`relevanceScore`).
/// Time-sensitive and critical notifications, and direct messages when the app's Direct Messages setting is on, are
/// delivered at once. `herald device summary` changes it; an app's `scheduledDeliverySetting` says whether it is in it.
package struct ScheduledSummary: Codable, Sendable, Hashable {
    package var isOn = false
    /// Minutes after midnight, local time, ascending (iOS's default: 8:00 and 18:00).
    package var times = [8 * 60, 18 * 60]
    /// The apps in it.
    package var apps: Set<String> = []

    package init() {}

    private enum CodingKeys: String, CodingKey { case isOn, times, apps }

    /// Reads a summary written by any version: fields added later take their defaults.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        isOn = try container.decodeIfPresent(Bool.self, forKey: .isOn) ?? isOn
        times = try container.decodeIfPresent([Int].self, forKey: .times) ?? times
        apps = try container.decodeIfPresent(Set<String>.self, forKey: .apps) ?? []
    }

    /// Whether `bundleID`'s notifications wait for it.
    package func holds(_ bundleID: String) -> Bool {
        isOn && apps.contains(bundleID)
    }

    /// The first of its times after `now`.
    package func next(after now: Date, calendar: Calendar) -> Date? {
        times.compactMap { minutes in
            calendar.nextDate(
                after: now, matching: DateComponents(hour: minutes / 60, minute: minutes % 60, second: 0), matchingPolicy: .nextTime)
        }.min()
    }

    /// "Your Morning Summary", "Your Afternoon Summary" or "Your Evening Summary", by the hour it arrives.
    package static func title(at date: Date, calendar: Calendar) -> String {
        switch calendar.component(.hour, from: date) {
        case ..<12: "Your Morning Summary"
        case ..<17: "Your Afternoon Summary"
        default: "Your Evening Summary"
        }
    }

    /// The setting an app reads (`scheduledDeliverySetting`): on while the summary is on and holds the app.
    package func setting(of bundleID: String) -> UNNotificationSetting {
        holds(bundleID) ? .enabled : .disabled
    }
}
