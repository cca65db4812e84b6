package import UserNotificationsUI

/// How high a content extension's view is drawn when its controller sets `preferredContentSize`.
///
/// iOS draws the view as wide as the notification and takes the height the extension asks for; so does every surface
/// here. The width asked is ignored (the surface's own width wins); the height is kept within bounds, so that a view
/// asking for 0.5 or 10,000 points stays usable.
package enum ContentViewHeight {
    /// The heights the notification center page draws, in CSS pixels (one iOS point each): from one row of a tap
    /// target's height (44 pt, Apple's minimum) to about the height of a phone's screen below the notification's header.
    package static let pagePixels: ClosedRange<Double> = 44...720
    /// Points per terminal row: one line of iOS's body text (17 pt type on a 22 pt line).
    package static let pointsPerRow = 22.0

    /// The view's height on the notification center page, in CSS pixels; nil when the extension asked for none.
    package static func pagePixels(for size: ContentExtensionWire.Size?) -> Int? {
        guard let height = size?.height, height > 0, height.isFinite else { return nil }
        return Int(min(max(height, pagePixels.lowerBound), pagePixels.upperBound).rounded())
    }

    /// The view's height on the terminal, in rows (2 to 33, as the page's bounds over ``pointsPerRow``); nil when the
    /// extension asked for none.
    package static func terminalRows(for size: ContentExtensionWire.Size?) -> Int? {
        pagePixels(for: size).map { Int((Double($0) / pointsPerRow).rounded(.up)) }
    }

    /// `lines` drawn in `rows` rows: blank lines below when fewer, and when more, the first `rows - 1` and a last line
    /// saying how many more there are (the terminal does not scroll a card, and iOS clips a taller view).
    package static func fit(_ lines: [String], rows: Int) -> [String] {
        if lines.count <= rows { return lines + Array(repeating: "", count: rows - lines.count) }
        let hidden = lines.count - (rows - 1)
        return Array(lines.prefix(rows - 1)) + ["… \(hidden) more lines below the view's height"]
    }
}
