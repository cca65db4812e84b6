package import Foundation

/// A stored `UNNotificationTrigger`.
package enum TriggerRecord: Codable, Hashable, Sendable {
    /// A time-interval trigger; `scheduledDate` is when its request was scheduled, once known.
    case timeInterval(interval: TimeInterval, repeats: Bool, scheduledDate: Date?)
    case calendar(components: DateComponentsRecord, repeats: Bool)
    case location(region: RegionRecord, repeats: Bool)
    case push

    /// Captures `trigger`; nil for a trigger class this package does not know (an app's own subclass).
    package init?(_ trigger: UNNotificationTrigger) {
        switch trigger {
        case let interval as UNTimeIntervalNotificationTrigger:
            self = .timeInterval(interval: interval.timeInterval, repeats: interval.repeats, scheduledDate: interval.scheduledDate)
        case let calendar as UNCalendarNotificationTrigger:
            self = .calendar(components: DateComponentsRecord(calendar.dateComponents), repeats: calendar.repeats)
        case let location as UNLocationNotificationTrigger:
            self = .location(region: RegionRecord(location.region), repeats: location.repeats)
        case is UNPushNotificationTrigger:
            self = .push
        default:
            return nil
        }
    }

    package var trigger: UNNotificationTrigger {
        switch self {
        case .timeInterval(let interval, let repeats, let scheduledDate):
            UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: repeats, scheduledDate: scheduledDate)
        case .calendar(let components, let repeats):
            UNCalendarNotificationTrigger(dateMatching: components.dateComponents, repeats: repeats)
        case .location(let region, let repeats):
            UNLocationNotificationTrigger(region: region.region, repeats: repeats)
        case .push:
            UNPushNotificationTrigger()
        }
    }
}
