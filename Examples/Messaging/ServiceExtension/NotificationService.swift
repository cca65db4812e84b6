// The messaging app's service extension: a push with `mutable-content: 1` and the custom keys `sender` (`name`,
// `handle`, `avatar` — a file or http(s) address of the picture) and, for a group, `group` becomes a communication
// notification, as iOS 15 apps do it: an INSendMessageIntent with the sender, donated as an incoming interaction, and
// the content updated from it. The device then shows the sender's name and avatar in place of the app's, lets the
// message through a Focus that allows the sender, and delivers it outside the scheduled summary.
import Foundation
import Intents
import UserNotifications

@main
final class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content
        let userInfo = request.content.userInfo
        guard let sender = userInfo["sender"] as? [String: Any], let name = sender["name"] as? String else {
            contentHandler(request.content)
            return
        }
        let image = (sender["avatar"] as? String).flatMap(URL.init(string:)).flatMap(Self.image)
        let person = INPerson(
            personHandle: INPersonHandle(value: sender["handle"] as? String, type: .emailAddress), nameComponents: nil, displayName: name,
            image: image, contactIdentifier: nil, customIdentifier: sender["handle"] as? String)
        let group = (userInfo["group"] as? String).map(INSpeakableString.init(spokenPhrase:))
        let intent = INSendMessageIntent(
            recipients: nil, outgoingMessageType: .outgoingMessageText, content: request.content.body, speakableGroupName: group,
            conversationIdentifier: request.content.threadIdentifier, serviceName: nil, sender: person, attachments: nil)
        let interaction = INInteraction(intent: intent, response: nil)
        interaction.direction = .incoming
        interaction.donate { error in
            if let error = error { print("donating the message failed: \(error.localizedDescription)") }
        }
        do {
            contentHandler(try request.content.updating(from: intent))
        } catch {
            print("the message stays an ordinary notification: \(error.localizedDescription)")
            contentHandler(request.content)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler = contentHandler, let bestAttemptContent = bestAttemptContent {
            contentHandler(bestAttemptContent)
        }
    }

    /// The avatar: a local file as it is, an http(s) address fetched (within the extension's time).
    private static func image(_ url: URL) -> INImage? {
        if url.isFileURL { return INImage(url: url) }
        guard let data = try? Data(contentsOf: url) else { return nil }
        return INImage(imageData: data)
    }
}
