// The category sample: an action with text input and a destructive one, registered as a category that
// also wants dismissals reported.
import Foundation
import UserNotifications

func registerNotificationCategory() {
    let saySomethingCategory: UNNotificationCategory = {
        let inputAction = UNTextInputNotificationAction(
            identifier: "action.input",
            title: "Input",
            options: [.foreground],
            textInputButtonTitle: "Send",
            textInputPlaceholder: "What do you want to say...")
        let goodbyeAction = UNNotificationAction(
            identifier: "action.goodbye",
            title: "Goodbye",
            options: [.foreground])
        let cancelAction = UNNotificationAction(
            identifier: "action.cancel",
            title: "Cancel",
            options: [.destructive])
        return UNNotificationCategory(
            identifier: "saySomethingCategory", actions: [inputAction, goodbyeAction, cancelAction],
            intentIdentifiers: [], options: [.customDismissAction])
    }()
    UNUserNotificationCenter.current().setNotificationCategories([saySomethingCategory])
}

@main
struct TextInputCategoryExample {
    static func main() async throws {
        registerNotificationCategory()
        let categories = await UNUserNotificationCenter.current().notificationCategories()
        for category in categories {
            print("category \(category.identifier) customDismiss=\(category.options.contains(.customDismissAction))")
            for action in category.actions {
                if let input = action as? UNTextInputNotificationAction {
                    print("  text \(input.identifier) button=\(input.textInputButtonTitle) placeholder=\(input.textInputPlaceholder)")
                } else {
                    print("  action \(action.identifier) destructive=\(action.options.contains(.destructive))")
                }
            }
        }
    }
}
