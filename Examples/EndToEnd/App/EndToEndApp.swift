// The end-to-end encryption example's app: makes (once) the key it shares with its provider in the app group
// container, registers for remote notifications, and shows what its service extension decrypted. The provider
// (Examples/EndToEnd/Provider) seals each message with the key; the gateway and the wire see only ciphertext.
import EndToEndShared
import Foundation
import UserNotifications

final class AppDelegate: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        print("Message: \(notification.request.content.title): \(notification.request.content.body)")
        completionHandler([.banner, .list])
    }
}

@main
struct EndToEndApp {
    static func main() async {
        let center = UNUserNotificationCenter.current()
        let delegate = AppDelegate()
        center.delegate = delegate
        do {
            let keyURL = try EndToEndKey.defaultURL()
            _ = try EndToEndKey.loadOrCreate(at: keyURL)
            print("Shared key: \(keyURL.path) (give it to the provider: EndToEndProvider --key-file)")
            let granted = try await center.requestAuthorization(options: [.alert, .sound])
            print("Permission granted: \(granted)")
            let token = try await center.registerForRemoteNotifications()
            print("Device Token: \(token.map { String(format: "%02x", $0) }.joined())")
        } catch {
            print("Failed: \(error)")
        }
        let seconds = Double(ProcessInfo.processInfo.environment["E2E_LIFETIME"] ?? "") ?? 86_400
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        withExtendedLifetime(delegate) {}
    }
}
