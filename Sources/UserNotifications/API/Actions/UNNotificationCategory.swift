public import Foundation

/// A kind of notification the app posts: the actions offered with it and how it is handled.
/// Notifications name their category with `UNNotificationContent.categoryIdentifier`.
///
/// ```swift
/// let invite = UNNotificationCategory(identifier: "INVITE", actions: [accept, decline],
///                                     intentIdentifiers: [], options: [.customDismissAction])
/// UNUserNotificationCenter.current().setNotificationCategories([invite])
/// ```
open class UNNotificationCategory: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable, immutable value.
    /// The category's identifier.
    public let identifier: String
    /// The actions offered, in order.
    public let actions: [UNNotificationAction]
    /// The SiriKit intents the category relates to.
    public let intentIdentifiers: [String]
    /// How the category's notifications are handled.
    public let options: UNNotificationCategoryOptions
    /// The text shown instead of the body when previews are hidden; empty for the system's.
    open var hiddenPreviewsBodyPlaceholder: String { placeholder ?? "" }
    /// The format of the category's group summary; empty for the system's.
    open var categorySummaryFormat: String { summaryFormat ?? "" }

    package let placeholder: String?
    package let summaryFormat: String?

    /// A category with actions, intents, an optional hidden-previews placeholder and summary format, and options.
    public init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        hiddenPreviewsBodyPlaceholder: String?, categorySummaryFormat: String?,
        options: UNNotificationCategoryOptions = []
    ) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
        placeholder = hiddenPreviewsBodyPlaceholder
        summaryFormat = categorySummaryFormat
    }

    /// A category with actions, intents and options.
    public convenience init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        options: UNNotificationCategoryOptions = []
    ) {
        self.init(
            identifier: identifier, actions: actions, intentIdentifiers: intentIdentifiers,
            hiddenPreviewsBodyPlaceholder: nil, categorySummaryFormat: nil, options: options)
    }

    /// A category with actions, intents, the text shown when previews are hidden, and options.
    public convenience init(
        identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String],
        hiddenPreviewsBodyPlaceholder: String, options: UNNotificationCategoryOptions = []
    ) {
        self.init(
            identifier: identifier, actions: actions, intentIdentifiers: intentIdentifiers,
            hiddenPreviewsBodyPlaceholder: hiddenPreviewsBodyPlaceholder, categorySummaryFormat: nil, options: options)
    }

    /// The category itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Categories are equal when all their values are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationCategory else { return false }
        return identifier == other.identifier && actions == other.actions && intentIdentifiers == other.intentIdentifiers
            && options == other.options && placeholder == other.placeholder && summaryFormat == other.summaryFormat
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(identifier)
        hasher.combine(actions)
        hasher.combine(options.rawValue)
        return hasher.finalize()
    }
}
