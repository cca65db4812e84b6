import Foundation
import Testing

@testable import UserNotifications

/// What the terminal and `--json` presenters say of how a notification may interrupt (issue 44).
@Suite struct NotificationCardTextTests {
    static func card(_ configure: (inout NotificationCard.Style) -> Void = { _ in }) -> NotificationCard {
        var card = NotificationCard(identifier: "order-42", topic: "com.example.app", title: "Your order", body: "has shipped", date: Date())
        configure(&card.style)
        return card
    }

    static func json(_ card: NotificationCard) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(card.jsonLine.utf8)) as? [String: Any])
    }

    @Test func anActiveNotificationReadsAsBefore() throws {
        let card = Self.card()
        #expect(card.text.contains("│ Your order") && card.text.contains("│ has shipped") && !card.text.contains("Time Sensitive"))
        let json = try Self.json(card)
        #expect(json["interruptionLevel"] == nil && json["quiet"] == nil && json["previewHidden"] == nil)
    }

    @Test func theLevelAndAQuietDeliveryAreSaid() throws {
        let card = Self.card {
            $0.interruptionLevel = .timeSensitive
            $0.isQuiet = true
        }
        #expect(card.text.split(separator: "\n")[0].hasSuffix("· Time Sensitive · delivered quietly"))
        let json = try Self.json(card)
        #expect(json["interruptionLevel"] as? String == "timeSensitive" && json["quiet"] as? Bool == true)
        #expect(Self.card { $0.interruptionLevel = .critical }.text.contains("· Critical"))
    }

    /// Previews off: the terminal shows "Notification", as iOS's card does; `--json` keeps the content for scripts and
    /// says the preview is hidden.
    @Test func hiddenPreviewsShowNoContentOnTheTerminal() throws {
        let card = Self.card { $0.hidesPreview = true }
        #expect(card.text.contains("│ Notification") && !card.text.contains("Your order") && !card.text.contains("shipped"))
        let json = try Self.json(card)
        #expect(json["previewHidden"] as? Bool == true && json["title"] as? String == "Your order")
    }
}
