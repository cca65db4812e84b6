// The end-to-end example's service extension: the push carries the alert text sealed under a key shared with the
// app (payload key "ciphertext"); this opens it and shows the real title and body. If it cannot, the visible
// placeholder of the push is shown instead. The device daemon runs it for com.example.e2e (../EndToEnd.app).
import EndToEndShared
import Foundation
import UserNotifications

@main
final class NotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let sealed = request.content.userInfo[EndToEndMessage.payloadKey] as? String,
            let content = request.content.mutableCopy() as? UNMutableNotificationContent
        else {
            contentHandler(request.content)
            return
        }
        do {
            let message = try EndToEndMessage(opening: sealed, with: EndToEndKey.load(from: EndToEndKey.defaultURL()))
            content.body = message.body
            if let title = message.title { content.title = title }
            var userInfo = content.userInfo
            userInfo.removeValue(forKey: EndToEndMessage.payloadKey)
            content.userInfo = userInfo
            contentHandler(content)
        } catch {
            print("cannot decrypt the message: \(error)")
            contentHandler(request.content)
        }
    }
}
