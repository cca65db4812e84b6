// The management sample: list, update (same identifier) and remove pending and delivered notifications.
import Foundation
import UserNotifications

class NotificationHandler: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        completionHandler([.list])
    }
}

func content(_ title: String) -> UNMutableNotificationContent {
    let content = UNMutableNotificationContent()
    content.title = title
    return content
}

@main
struct ManagementExample {
    static let handler = NotificationHandler()

    static func main() async throws {
        let center = UNUserNotificationCenter.current()
        center.delegate = handler  // the center holds its delegate weakly, as on iOS
        _ = try await center.requestAuthorization(options: [.alert])

        let later = UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false)
        try await center.add(UNNotificationRequest(identifier: "a", content: content("A"), trigger: later))
        try await center.add(UNNotificationRequest(identifier: "b", content: content("B"), trigger: later))
        try await center.add(UNNotificationRequest(identifier: "a", content: content("A, updated"), trigger: later))
        let pending = await center.pendingNotificationRequests().sorted { $0.identifier < $1.identifier }
        print("pending \(pending.map { "\($0.identifier)=\($0.content.title)" })")

        center.removePendingNotificationRequests(withIdentifiers: ["b"])
        print("pending after remove \(await center.pendingNotificationRequests().map(\.identifier))")

        try await center.add(UNNotificationRequest(identifier: "now1", content: content("Now 1"), trigger: nil))
        try await center.add(UNNotificationRequest(identifier: "now2", content: content("Now 2"), trigger: nil))
        try await center.add(UNNotificationRequest(identifier: "now1", content: content("Now 1, updated"), trigger: nil))
        print("delivered \(await center.deliveredNotifications().map { "\($0.request.identifier)=\($0.request.content.title)" })")
        center.removeDeliveredNotifications(withIdentifiers: ["now2"])
        print("delivered after remove \(await center.deliveredNotifications().map(\.request.identifier))")
        center.removeAllPendingNotificationRequests()
        center.removeAllDeliveredNotifications()
        print("cleared \(await center.pendingNotificationRequests().count) \(await center.deliveredNotifications().count)")
    }
}
