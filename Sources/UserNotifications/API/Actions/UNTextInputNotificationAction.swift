/// An action that asks the user for text; the answer arrives as a `UNTextInputNotificationResponse`.
///
/// ```swift
/// let reply = UNTextInputNotificationAction(identifier: "REPLY", title: "Reply", options: [],
///                                           textInputButtonTitle: "Send", textInputPlaceholder: "Message")
/// ```
open class UNTextInputNotificationAction: UNNotificationAction, @unchecked Sendable {
    /// The title of the button that sends the text.
    public let textInputButtonTitle: String
    /// The placeholder shown in the empty text field.
    public let textInputPlaceholder: String

    /// A text-input action with an identifier, a title, options, the send button's title and a placeholder.
    public init(
        identifier: String, title: String, options: UNNotificationActionOptions = [],
        textInputButtonTitle: String, textInputPlaceholder: String
    ) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options)
    }

    /// A text-input action with an icon (iOS 15).
    public init(
        identifier: String, title: String, options: UNNotificationActionOptions = [], icon: UNNotificationActionIcon?,
        textInputButtonTitle: String, textInputPlaceholder: String
    ) {
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
        super.init(identifier: identifier, title: title, options: options, icon: icon)
    }

    /// Text-input actions are equal when all their values are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? UNTextInputNotificationAction else { return false }
        return textInputButtonTitle == other.textInputButtonTitle && textInputPlaceholder == other.textInputPlaceholder
    }
}
