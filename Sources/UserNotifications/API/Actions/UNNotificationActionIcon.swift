public import Foundation

/// The icon of an action's button (iOS 15): a template image in the app's bundle, or a system symbol by name. Shown
/// where a presenter can draw one (the notification center page draws the symbol's name as the button's icon text;
/// the desktop passes template images as icons where the server takes them).
///
/// ```swift
/// let like = UNNotificationAction(identifier: "LIKE", title: "Like", options: [], icon: UNNotificationActionIcon(systemImageName: "hand.thumbsup"))
/// ```
open class UNNotificationActionIcon: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    /// Where the image comes from.
    package enum Source: Codable, Hashable, Sendable {
        /// An image file in the app's bundle, drawn as a template (its shape in the current text color).
        case template(String)
        /// A system symbol (SF Symbols on iOS).
        case system(String)
    }

    package let source: Source

    package init(source: Source) {
        self.source = source
    }

    /// An icon from an image in the app's bundle, drawn as a template.
    public convenience init(templateImageName: String) {
        self.init(source: .template(templateImageName))
    }

    /// An icon from a system symbol's name.
    public convenience init(systemImageName: String) {
        self.init(source: .system(systemImageName))
    }

    /// The icon itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Icons are equal when their images are.
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? UNNotificationActionIcon)?.source == source
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int { source.hashValue }
}
