import Foundation
import Intents
import Testing

@testable import UserNotifications

/// iOS 15's communication notifications: `updating(from:)` with Intents' INSendMessageIntent, and what it changes.
@Suite struct CommunicationTests {
    static let avatar = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

    static func intent(sender: INPerson?, group: String? = nil, recipients: [INPerson]? = nil) -> INSendMessageIntent {
        INSendMessageIntent(
            recipients: recipients, outgoingMessageType: .outgoingMessageText, content: "Hi",
            speakableGroupName: group.map(INSpeakableString.init(spokenPhrase:)), conversationIdentifier: "chat-7", serviceName: nil,
            sender: sender, attachments: nil)
    }

    static func person(_ name: String, handle: String, image: INImage? = nil) -> INPerson {
        INPerson(
            personHandle: INPersonHandle(value: handle, type: .emailAddress), nameComponents: nil, displayName: name, image: image,
            contactIdentifier: nil, customIdentifier: nil)
    }

    @Test func theSenderAndConversationGoIntoTheContent() throws {
        let content = UNMutableNotificationContent()
        content.title = "New message"
        let updated = try content.updating(
            from: Self.intent(sender: Self.person("Alice", handle: "alice@example.com", image: INImage(imageData: Self.avatar))))
        let record = try ContentRecord(updated)
        #expect(record.title == "New message")
        #expect(
            record.communication
                == CommunicationRecord(senderName: "Alice", senderHandle: "alice@example.com", avatar: Self.avatar, conversationIdentifier: "chat-7"))
        // It survives the store and the wire.
        let decoded = try JSONDecoder().decode(ContentRecord.self, from: JSONEncoder().encode(record))
        #expect(decoded.communication == record.communication && decoded.content.isEqual(updated))
    }

    /// A group shows its name, and its picture when one is set for the group's name; several recipients make a group.
    @Test func aGroupHasItsNameAndPicture() throws {
        let team = Self.intent(
            sender: Self.person("Bob", handle: "bob@example.com", image: INImage(imageData: Data([0xFF, 0xD8, 0xFF]))), group: "Team")
        team.setImage(INImage(imageData: Self.avatar), forParameterNamed: \INSendMessageIntent.speakableGroupName)
        let record = try #require(try ContentRecord(UNNotificationContent().updating(from: team)).communication)
        #expect(record.groupName == "Team" && record.avatar == Self.avatar)
        let recipients = [Self.person("Carol", handle: "c"), Self.person("Dave", handle: "d")]
        let unnamed = try ContentRecord(
            UNNotificationContent().updating(from: Self.intent(sender: Self.person("Bob", handle: "b"), recipients: recipients)))
        #expect(unnamed.communication?.groupName == "Carol, Dave")
    }

    final class NotAnIntent: NSObject, UNNotificationContentProviding {}

    @Test func onlyIntentsWithASenderAreTaken() {
        #expect { try UNNotificationContent().updating(from: Self.intent(sender: nil)) } throws: {
            ($0 as? UNError)?.code == .contentProvidingInvalid
        }
        #expect { try UNNotificationContent().updating(from: NotAnIntent()) } throws: {
            ($0 as? UNError)?.code == .contentProvidingObjectNotAllowed
        }
    }

    /// The sender shows only for an app entitled to communication notifications; a Focus lets allowed people through.
    @Test func theEntitlementAndTheFocusDecide() throws {
        let updated = try UNNotificationContent().updating(from: Self.intent(sender: Self.person("Alice", handle: "alice@example.com")))
        let request = try RequestRecord(UNNotificationRequest(identifier: "m", content: updated, trigger: nil))
        let content = request.content
        var card = NotificationCard(NotificationRecord(date: Date(), request: request), bundleID: "com.example.chat")
        let plain = SettingsRecord.answered(true, options: [.alert])
        card.style = NotificationCard.Style(content: content, bundleID: "com.example.chat", settings: plain, options: [.banner])
        #expect(card.sender == nil && card.jsonFields["sender"] == nil)
        let entitled = SettingsRecord.answered(true, options: [.alert], entitlements: .communication)
        var focus = Focus()
        card.style = NotificationCard.Style(content: content, bundleID: "com.example.chat", settings: entitled, options: [.banner], focus: focus)
        #expect(card.sender?.senderName == "Alice" && card.style.silencedBy == "Do Not Disturb")
        #expect(card.text.hasPrefix("┌─ Alice (com.example.chat)"))
        focus.allowedPeople = ["alice@example.com"]
        let allowed = NotificationCard.Style(content: content, bundleID: "com.example.chat", settings: entitled, options: [.banner], focus: focus)
        #expect(allowed.silencedBy == nil)
    }
}
