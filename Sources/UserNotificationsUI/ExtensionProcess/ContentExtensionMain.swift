extension UNNotificationContentExtension where Self: UIViewController {
    /// Runs this class as a content extension process — the entry point of an extension executable, so app code writes
    /// only `@main final class NotificationViewController: UIViewController, UNNotificationContentExtension { … }`.
    /// The device daemon starts it when a notification of its categories is expanded; run by hand it reads the same
    /// lines and prints its views: `echo '{"notification":{…}}' | ./MyContentExtension`. Never returns.
    public static func main() {
        let type = self
        ExtensionLineHost.run(
            ContentExtensionWire.Input.self, outputDescriptorVariable: ContentExtensionWire.outputDescriptorVariable,
            wrongInput: "UserNotificationsUI: the content extension's input is not a message of the device daemon (docs/content-extensions.md)"
        ) { send in
            ContentExtensionSession(controller: type.init()) { send($0) }.handle
        }
    }
}
