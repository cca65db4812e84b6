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

    /// An action with an identifier, a title and options.
    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
    }

    /// The action itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Actions are equal when they are of the same class with the same values.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAction, type(of: other) == type(of: self) else { return false }
        return identifier == other.identifier && title == other.title && options == other.options
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(identifier)
        hasher.combine(title)
        hasher.combine(options.rawValue)
        return hasher.finalize()
    }
}
