package import Foundation
import HeraldWire

/// What arrives at a summary's time: its notifications, most relevant first (then newest first).
package struct NotificationSummary: Sendable, Hashable {
    package var title: String
    package var date: Date
    package var cards: [NotificationCard]

    package init(title: String, date: Date, cards: [NotificationCard]) {
        self.title = title
        self.date = date
        self.cards = cards.sorted { ($0.relevanceScore, $0.date) > ($1.relevanceScore, $1.date) }
    }

    /// ```
    /// ┌─ Your Evening Summary · 18:00:00 · 5 notifications
    /// │ com.example.news: Storm warning
    /// │ com.example.shop: Your order has shipped
    /// │ … and 3 more
    /// └─
    /// ```
    package var text: String {
        var lines = ["┌─ \(title) · \(date.formatted(date: .omitted, time: .standard)) · \(cards.count) notification\(cards.count == 1 ? "" : "s")"]
        for card in cards.prefix(Self.highlights) {
            let words = card.style.hidesPreview ? "Notification" : [card.title, card.body].compactMap { $0 }.joined(separator: " — ")
            lines.append("│ \(card.topic): \(words)")
        }
        if cards.count > Self.highlights { lines.append("│ … and \(cards.count - Self.highlights) more") }
        lines.append("└─")
        return lines.joined(separator: "\n")
    }

    /// How many notifications a summary names; the rest are counted.
    package static let highlights = 4

    /// `{"event": "summary", "title", "date", "count", "notifications": [card fields…]}`, most relevant first.
    package var jsonLine: String {
        let object = JSONValue.object([
            "event": .string("summary"), "title": .string(title), "date": .string(date.ISO8601Format()),
            "count": .integer(Int64(cards.count)),
            "notifications": .array(cards.map { card in .object(card.jsonFields.filter { $0.key != "event" }) }),
        ])
        return String(decoding: object.encoded(), as: UTF8.self)
    }
}
