// The time-interval sample: ask for permission, schedule a notification a moment from now, present it in the
// foreground through the delegate. Run with HERALD_AUTHORIZATION=grant for a non-interactive run.
import Foundation
import UserNotifications

class NotificationHandler: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        print("willPresent \(notification.request.identifier)")
        completionHandler([.banner, .list, .sound])
    }
}

@main
struct TimeIntervalExample {
    static let handler = NotificationHandler()

    static func main() async throws {
        let center = UNUserNotificationCenter.current()
        center.delegate = handler  // the center holds its delegate weakly, as on iOS

        let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
        print("granted \(granted)")

        let content = UNMutableNotificationContent()
        content.title = "Time Interval Notification"
        content.body = "My first notification"
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 1, repeats: false)
        let request = UNNotificationRequest(identifier: "com.onevcat.usernotification.myFirstNotification", content: content, trigger: trigger)
        try await center.add(request)
        print("pending \(await center.pendingNotificationRequests().map(\.identifier))")

        for _ in 0..<50 where await center.deliveredNotifications().isEmpty {
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        print("delivered \(await center.deliveredNotifications().map(\.request.identifier))")
    }
}
