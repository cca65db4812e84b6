public import Foundation

/// A button offered with notifications of a category.
///
/// ```swift
/// let accept = UNNotificationAction(identifier: "ACCEPT", title: "Accept", options: [.foreground])
/// let decline = UNNotificationAction(identifier: "DECLINE", title: "Decline", options: [.destructive])
/// ```
open class UNNotificationAction: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    /// The identifier reported as the response's `actionIdentifier`.
    public let identifier: String
    /// The button's title.
    public let title: String
    /// How the action behaves.
    public let options: UNNotificationActionOptions
    /// The button's icon (iOS 15); nil for none.
    public let icon: UNNotificationActionIcon?

    /// An action with an identifier, a title and options.
    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
        icon = nil
    }

    /// An action with an identifier, a title, options and an icon (iOS 15).
    public init(identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.icon = icon
    }

    /// The action itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Actions are equal when they are of the same class with the same values.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAction, type(of: other) == type(of: self) else { return false }
        return identifier == other.identifier && title == other.title && options == other.options && icon == other.icon
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(identifier)
        hasher.combine(title)
        hasher.combine(options.rawValue)
        hasher.combine(icon)
        return hasher.finalize()
    }
}
