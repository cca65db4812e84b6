import Testing
import UserNotifications

@Suite struct ActionCategoryTests {
    @Test func actionsKeepTheirValues() {
        let action = UNNotificationAction(identifier: "ACCEPT", title: "Accept", options: [.foreground, .authenticationRequired])
        #expect(action.identifier == "ACCEPT" && action.title == "Accept" && action.options == [.foreground, .authenticationRequired])
        #expect(UNNotificationAction(identifier: "a", title: "A").options.isEmpty)
        let reply = UNTextInputNotificationAction(
            identifier: "REPLY", title: "Reply", options: [],
            textInputButtonTitle: "Send", textInputPlaceholder: "Message")
        #expect(reply.textInputButtonTitle == "Send" && reply.textInputPlaceholder == "Message")
    }

    @Test func actionsCompareByValueAndClass() {
        let plain = UNNotificationAction(identifier: "a", title: "A", options: [])
        #expect(plain == UNNotificationAction(identifier: "a", title: "A", options: []))
        #expect(plain != UNNotificationAction(identifier: "a", title: "A", options: [.destructive]))
        let text = UNTextInputNotificationAction(identifier: "a", title: "A", options: [], textInputButtonTitle: "Send", textInputPlaceholder: "")
        #expect(plain != text && text != plain)
        #expect(
            text == UNTextInputNotificationAction(identifier: "a", title: "A", options: [], textInputButtonTitle: "Send", textInputPlaceholder: ""))
        #expect(text != UNTextInputNotificationAction(identifier: "a", title: "A", options: [], textInputButtonTitle: "Go", textInputPlaceholder: ""))
    }

    @Test func categoryInitializersAndDefaults() {
        let actions = [UNNotificationAction(identifier: "a", title: "A", options: [])]
        let basic = UNNotificationCategory(identifier: "c", actions: actions, intentIdentifiers: ["i"], options: [.customDismissAction])
        #expect(basic.identifier == "c" && basic.actions == actions && basic.intentIdentifiers == ["i"])
        #expect(basic.options == [.customDismissAction] && basic.hiddenPreviewsBodyPlaceholder == "" && basic.categorySummaryFormat == "")
        let hidden = UNNotificationCategory(identifier: "c", actions: [], intentIdentifiers: [], hiddenPreviewsBodyPlaceholder: "New message")
        #expect(hidden.hiddenPreviewsBodyPlaceholder == "New message" && hidden.options.isEmpty)
        let summary = UNNotificationCategory(
            identifier: "c", actions: [], intentIdentifiers: [], hiddenPreviewsBodyPlaceholder: nil,
            categorySummaryFormat: "%u more", options: [.hiddenPreviewsShowTitle])
        #expect(summary.categorySummaryFormat == "%u more" && summary.hiddenPreviewsBodyPlaceholder == "")
    }

    @Test func categoriesAreHashableByValueForSets() {
        func make(_ title: String) -> UNNotificationCategory {
            UNNotificationCategory(
                identifier: "invite", actions: [UNNotificationAction(identifier: "ok", title: title, options: [])],
                intentIdentifiers: [], options: [])
        }
        let set: Set<UNNotificationCategory> = [make("OK"), make("OK"), make("Fine")]
        #expect(set.count == 2)
        #expect(set.contains(make("OK")))
        #expect(make("OK").hash == make("OK").hash)
    }
}
