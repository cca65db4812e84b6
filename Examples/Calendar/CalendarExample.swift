// The calendar sample: a weekly trigger (Monday 08:00; weekday 1 is Sunday) and one that fires two seconds
// from now by matching hour, minute and second.
import Foundation
import UserNotifications

class NotificationHandler: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions
    {
        [.banner, .list]
    }
}

@main
struct CalendarExample {
    static let handler = NotificationHandler()

    static func main() async throws {
        let center = UNUserNotificationCenter.current()
        center.delegate = handler  // the center holds its delegate weakly, as on iOS
        _ = try await center.requestAuthorization(options: [.alert])

        var components = DateComponents()
        components.weekday = 2
        components.hour = 8
        let weekly = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
        if let next = weekly.nextTriggerDate() {
            let local = Calendar.current.dateComponents([.weekday, .hour, .minute], from: next)
            print("weekly next weekday=\(local.weekday!) hour=\(local.hour!) minute=\(local.minute!)")
        }

        let content = UNMutableNotificationContent()
        content.title = "Calendar Notification"
        let soon = Calendar.current.dateComponents([.hour, .minute, .second], from: Date().addingTimeInterval(2))
        try await center.add(UNNotificationRequest(identifier: "weekly", content: content, trigger: weekly))
        try await center.add(
            UNNotificationRequest(
                identifier: "soon", content: content,
                trigger: UNCalendarNotificationTrigger(dateMatching: soon, repeats: false)))
        for _ in 0..<60 where await center.deliveredNotifications().isEmpty {
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        print("delivered \(await center.deliveredNotifications().map(\.request.identifier))")
        print("pending \(await center.pendingNotificationRequests().map(\.identifier))")
    }
}
