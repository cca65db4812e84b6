/// A stored `UNNotificationAction` or `UNTextInputNotificationAction`.
package struct ActionRecord: Codable, Hashable, Sendable {
    /// The text field of a text-input action.
    package struct TextInput: Codable, Hashable, Sendable {
        package var buttonTitle: String
        package var placeholder: String
    }

    package var identifier: String
    package var title: String
    package var options: UInt
    /// Present for a `UNTextInputNotificationAction`.
    package var textInput: TextInput?
    /// The button's icon (iOS 15); absent in records written before icons.
    package var icon: UNNotificationActionIcon.Source?

    package init(_ action: UNNotificationAction) {
        identifier = action.identifier
        title = action.title
        options = action.options.rawValue
        icon = action.icon?.source
        if let text = action as? UNTextInputNotificationAction {
            textInput = TextInput(buttonTitle: text.textInputButtonTitle, placeholder: text.textInputPlaceholder)
        }
    }

    package var action: UNNotificationAction {
        let options = UNNotificationActionOptions(rawValue: options)
        let icon = self.icon.map(UNNotificationActionIcon.init(source:))
        guard let textInput else {
            return UNNotificationAction(identifier: identifier, title: title, options: options, icon: icon)
        }
        return UNTextInputNotificationAction(
            identifier: identifier, title: title, options: options, icon: icon,
            textInputButtonTitle: textInput.buttonTitle, textInputPlaceholder: textInput.placeholder)
    }
}

/// A stored `UNNotificationCategory`.
package struct CategoryRecord: Codable, Hashable, Sendable {
    package var identifier: String
    package var actions: [ActionRecord]
    package var intentIdentifiers: [String]
    package var options: UInt
    package var hiddenPreviewsBodyPlaceholder: String?
    package var categorySummaryFormat: String?

    package init(_ category: UNNotificationCategory) {
        identifier = category.identifier
        actions = category.actions.map(ActionRecord.init)
        intentIdentifiers = category.intentIdentifiers
        options = category.options.rawValue
        hiddenPreviewsBodyPlaceholder = category.placeholder
        categorySummaryFormat = category.summaryFormat
    }

    package var category: UNNotificationCategory {
        UNNotificationCategory(
            identifier: identifier, actions: actions.map(\.action), intentIdentifiers: intentIdentifiers,
            hiddenPreviewsBodyPlaceholder: hiddenPreviewsBodyPlaceholder,
            categorySummaryFormat: categorySummaryFormat,
            options: UNNotificationCategoryOptions(rawValue: options))
    }
}
