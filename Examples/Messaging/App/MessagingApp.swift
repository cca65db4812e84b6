// A messaging app with communication notifications (iOS 15): its service extension (Examples/Messaging/
// ServiceExtension) turns each message push into a notification from its sender — name and avatar in place of the
// app's — and every conversation is a thread, so the notification center stacks it ("2 more messages from Bob").
// Replies typed in a notification come back to this app's delegate. The bundle (Messaging.app) declares the
// communication and time-sensitive entitlements. Install it with `herald apps install Examples/Messaging/Messaging.app
// --executable-dir .build/debug`, then run `herald device --gateway …` and this app.
import Foundation
import UserNotifications

final class AppDelegate: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        completionHandler([.banner, .list, .sound])
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void
    ) {
        let conversation = response.notification.request.content.threadIdentifier
        if let reply = response as? UNTextInputNotificationResponse {
            print("Reply in \(conversation): \(reply.userText)")
        } else if response.actionIdentifier == "mark-read" {
            print("Marked \(conversation) as read")
        } else {
            print("Opening \(conversation)")
        }
        completionHandler()
    }
}

@main
struct MessagingApp {
    static func main() async {
        let center = UNUserNotificationCenter.current()
        let delegate = AppDelegate()
        center.delegate = delegate
        let reply = UNTextInputNotificationAction(
            identifier: "reply", title: "Reply", options: [], icon: UNNotificationActionIcon(systemImageName: "arrowshape.turn.up.left"),
            textInputButtonTitle: "Send", textInputPlaceholder: "Message")
        let read = UNNotificationAction(identifier: "mark-read", title: "Mark as Read", options: [])
        center.setNotificationCategories([
            UNNotificationCategory(
                identifier: "message", actions: [reply, read], intentIdentifiers: ["INSendMessageIntent"],
                hiddenPreviewsBodyPlaceholder: "New message", categorySummaryFormat: "%u more messages from %@", options: [])
        ])
        do {
            let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
            print("Permission granted: \(granted)")
            let token = try await center.registerForRemoteNotifications()
            print("Device Token: \(token.map { String(format: "%02x", $0) }.joined())")
        } catch {
            print("Failed to register: \(error.localizedDescription)")
        }
        let seconds = Double(ProcessInfo.processInfo.environment["MESSAGING_LIFETIME"] ?? "") ?? 86_400
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        withExtendedLifetime(delegate) {}
    }
}
