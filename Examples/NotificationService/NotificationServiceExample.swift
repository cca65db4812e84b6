// The service-extension sample: the class a Notification Service Extension ships, rewriting the content of a
// remote notification before it is shown. The device daemon runs such classes; here it is driven directly.
import Foundation
import UserNotifications

class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        if let bestAttemptContent = bestAttemptContent {
            bestAttemptContent.title = "\(bestAttemptContent.title) [modified]"
            contentHandler(bestAttemptContent)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }
}

@main
struct NotificationServiceExample {
    static func main() async throws {
        let content = UNMutableNotificationContent()
        content.title = "Remote"
        content.body = "Encrypted body"
        let request = UNNotificationRequest(identifier: "push", content: content, trigger: nil)
        let service = NotificationService()
        service.didReceive(request) { modified in
            print("title \(modified.title)")
            print("body \(modified.body)")
        }
        print("original \(request.content.title)")
    }
}
