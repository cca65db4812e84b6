// The podcast app of the seed tutorial: asks to notify, registers for remote notifications and prints its device
// token for the provider, offers "Listen" and "Later" on new-episode notifications, and opens the episode when
// the person taps one. Its service extension (Examples/Podcast/ServiceExtension) names the guest in the title
// and attaches the episode's image. Install both with `herald apps install Examples/Podcast/Podcast.app
// --executable-dir .build/debug`, then run `herald device --gateway …` and this app.
import Foundation
import UserNotifications

final class AppDelegate: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        print("New episode while the app runs: \(notification.request.content.title)")
        completionHandler([.banner, .list, .sound])
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void
    ) {
        let userInfo = response.notification.request.content.userInfo
        let guest = userInfo["podcast-guest"] as? String ?? "our guest"
        switch response.actionIdentifier {
        case "later":
            print("Saved the episode with \(guest) for later")
        default:
            print("Playing the episode with \(guest)")
            // The extension's image is the episode's cover; it can still be read while the app hears of the tap.
            if let cover = response.notification.request.content.attachments.first,
                let bytes = FileManager.default.contents(atPath: cover.url.path)
            {
                print("Showing the cover (\(bytes.count) bytes)")
            }
        }
        completionHandler()
    }
}

@main
struct PodcastApp {
    static func main() async {
        let center = UNUserNotificationCenter.current()
        let delegate = AppDelegate()
        center.delegate = delegate
        let listen = UNNotificationAction(identifier: "listen", title: "Listen", options: [.foreground])
        let later = UNNotificationAction(identifier: "later", title: "Later", options: [])
        center.setNotificationCategories([
            UNNotificationCategory(identifier: "new-episode", actions: [listen, later], intentIdentifiers: [], options: [])
        ])
        do {
            let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
            print("Permission granted: \(granted)")
            let token = try await center.registerForRemoteNotifications()
            print("Device Token: \(token.map { String(format: "%02x", $0) }.joined())")
        } catch {
            print("Failed to register: \(error.localizedDescription)")
        }
        print("Waiting for episodes (Ctrl-C to quit)")
        let seconds = Double(ProcessInfo.processInfo.environment["PODCAST_LIFETIME"] ?? "") ?? 86_400
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        withExtendedLifetime(delegate) {}
    }
}
