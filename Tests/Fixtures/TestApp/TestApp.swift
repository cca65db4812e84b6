// An app for the device daemon's tests, written as iOS app code is. It prints one JSON line per thing that
// happens to it (to standard output, which the daemon sends to DATA_DIR/device/logs/BUNDLE_ID.log when it
// launches the app). Arguments: `register` asks for a device token; `add ID` adds a notification with no trigger;
// `schedule ID SECONDS` adds a time-interval request; `pending` and `delivered` print the app's pending requests
// and delivered notifications; `remove ID` removes a delivered one; `steal ID` tries to answer another app's
// notification over the daemon socket; `authorize` asks for permission (`authorize-settings` with
// .providesAppNotificationSettings, `authorize-provisional` provisionally); `wait SECONDS` stays that long (default 30).
// HERALD_TEST_PRESENT=none makes willPresent answer [] (default: banner, list, sound, badge).
import Foundation
import UserNotifications

func emit(_ fields: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

final class Handler: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        let content = notification.request.content
        emit(["event": "willPresent", "identifier": notification.request.identifier, "title": content.title, "body": content.body])
        let none = ProcessInfo.processInfo.environment["HERALD_TEST_PRESENT"] == "none"
        completionHandler(none ? [] : [.banner, .list, .sound, .badge])
    }

    func userNotificationCenter(
        _ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
        withCompletionHandler completionHandler: @escaping () -> Void
    ) {
        var fields: [String: Any] = [
            "event": "didReceive", "identifier": response.notification.request.identifier,
            "action": response.actionIdentifier, "title": response.notification.request.content.title,
        ]
        if let text = response as? UNTextInputNotificationResponse { fields["text"] = text.userText }
        emit(fields)
        completionHandler()
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {
        emit(["event": "openSettings", "identifier": notification?.request.identifier ?? NSNull()])
    }
}

@main
struct TestApp {
    static func main() async {
        let center = UNUserNotificationCenter.current()
        let handler = Handler()
        center.delegate = handler
        center.setRemoteNotificationHandler { userInfo in
            var payload: [String: Any] = [:]
            for (key, value) in userInfo { if let key = key as? String { payload[key] = value } }
            emit(["event": "background", "userInfo": payload])
        }
        emit(["event": "started", "launchReason": ProcessInfo.processInfo.environment["HERALD_LAUNCH_REASON"] ?? "none"])
        let reply = UNTextInputNotificationAction(
            identifier: "reply", title: "Reply", options: [],
            textInputButtonTitle: "Send", textInputPlaceholder: "Message")
        let open = UNNotificationAction(identifier: "open-app", title: "Open", options: [.foreground])
        let archive = UNNotificationAction(identifier: "archive", title: "Archive", options: [.destructive])
        center.setNotificationCategories([
            UNNotificationCategory(identifier: "MESSAGE", actions: [reply, open, archive], intentIdentifiers: [], options: [.customDismissAction]),
            UNNotificationCategory(identifier: "PLAIN", actions: [archive], intentIdentifiers: [], options: []),
        ])
        // The categories are set in order with the app's calls: reading them back means they are in place.
        _ = await center.notificationCategories()
        var arguments = Array(CommandLine.arguments.dropFirst())
        var lifetime = 30.0
        while !arguments.isEmpty {
            let argument = arguments.removeFirst()
            switch argument {
            case "register":
                do {
                    let token = try await center.registerForRemoteNotifications()
                    emit(["event": "token", "token": token.map { String(format: "%02x", $0) }.joined()])
                } catch {
                    emit(["event": "registrationFailed", "error": error.localizedDescription])
                }
            case "authorize":
                do {
                    let granted = try await center.requestAuthorization(options: [.alert, .sound, .badge])
                    emit(["event": "authorized", "granted": granted])
                } catch {
                    emit(["event": "authorizationFailed", "error": error.localizedDescription])
                }
            case "authorize-settings":
                let granted = (try? await center.requestAuthorization(options: [.alert, .providesAppNotificationSettings])) ?? false
                emit(["event": "authorized", "granted": granted])
            case "authorize-provisional":
                let granted = (try? await center.requestAuthorization(options: [.alert, .sound, .badge, .provisional])) ?? false
                emit(["event": "authorized", "granted": granted])
            case "add":
                let content = UNMutableNotificationContent()
                content.title = "Local"
                content.body = "Added by the app"
                content.categoryIdentifier = "MESSAGE"
                do {
                    try await center.add(UNNotificationRequest(identifier: arguments.removeFirst(), content: content, trigger: nil))
                    emit(["event": "added"])
                } catch {
                    emit(["event": "addFailed", "error": error.localizedDescription])
                }
            case "schedule":
                let identifier = arguments.removeFirst()
                let content = UNMutableNotificationContent()
                content.title = "Scheduled"
                let seconds = Double(arguments.removeFirst()) ?? 3600
                let trigger = UNTimeIntervalNotificationTrigger(timeInterval: seconds, repeats: false)
                do {
                    try await center.add(UNNotificationRequest(identifier: identifier, content: content, trigger: trigger))
                    emit(["event": "scheduled", "identifier": identifier])
                } catch {
                    emit(["event": "addFailed", "error": error.localizedDescription])
                }
            case "pending":
                let pending = await center.pendingNotificationRequests()
                emit(["event": "pending", "identifiers": pending.map(\.identifier)])
            case "steal":
                // What a malicious app could try over the socket: answer another app's notification.
                let socket = DaemonSocket.path(dataDirectory: AppIdentity.dataDirectory())
                let request = RespondRequest(bundleID: "com.example.app", identifier: arguments.removeFirst(), action: "open", text: nil)
                do {
                    _ = try await DaemonClient(path: socket).call(.respond(request))
                    emit(["event": "stole"])
                } catch {
                    emit(["event": "stealRefused", "error": error.localizedDescription])
                }
            case "remove":
                center.removeDeliveredNotifications(withIdentifiers: [arguments.removeFirst()])
            case "delivered":
                let delivered = await center.deliveredNotifications()
                emit([
                    "event": "delivered", "identifiers": delivered.map(\.request.identifier),
                    "titles": delivered.map(\.request.content.title),
                ])
            case "wait":
                lifetime = Double(arguments.removeFirst()) ?? lifetime
            case let command where command.hasPrefix("activity-"):
                await runActivityCommand(command, &arguments)
            default:
                emit(["event": "unknownArgument", "argument": argument])
            }
        }
        emit(["event": "ready"])
        try? await Task.sleep(nanoseconds: UInt64(lifetime * 1_000_000_000))
        withExtendedLifetime(handler) {}
    }
}
