import Foundation
import UserNotifications

/// One content extension at work, on the main actor: it takes the daemon's inputs one by one, calls the extension as
/// iOS does, and after each hands on the view as it is now. The process around it (``ContentExtensionHost``) only
/// reads lines and writes them.
@MainActor
package final class ContentExtensionSession {
    package typealias Extension = UIViewController & UNNotificationContentExtension

    private let controller: any Extension
    private let send: (ContentExtensionWire.Output) -> Void
    private var notification: UNNotification?
    private var sentFirstView = false

    /// - Parameters:
    ///   - controller: The extension's view controller, not yet loaded.
    ///   - send: Where its outputs go.
    package init(controller: any Extension, send: @escaping (ContentExtensionWire.Output) -> Void) {
        self.controller = controller
        self.send = send
        let context = NSExtensionContext()
        context.onRequest = { [weak context] request in
            switch request {
            case .actionsChanged: send(ContentExtensionWire.Output(actions: (context?.notificationActions ?? []).map(ActionRecord.init)))
            default: send(ContentExtensionWire.Output(context: request.rawValue))
            }
        }
        controller.extensionContext = context
    }

    /// Acts on one input and sends the view after it.
    package func handle(_ input: ContentExtensionWire.Input) {
        if let record = input.notification {
            let shown = record.notification
            notification = shown
            controller.loadViewIfNeeded()
            controller.didReceive(shown)
        }
        if let response = input.response, let notification {
            let answer =
                response.userText.map {
                    UNTextInputNotificationResponse(notification: notification, actionIdentifier: response.actionIdentifier, userText: $0)
                } ?? UNNotificationResponse(notification: notification, actionIdentifier: response.actionIdentifier)
            // The answer may come later; the view is sent again with it (a `.doNotDismiss` extension redraws).
            controller.didReceive(answer) { [weak self] option in
                self?.send(ContentExtensionWire.Output(completion: option.rawValue))
                self?.sendView()
            }
        }
        if let click = input.click {
            let buttons = ViewSnapshot.buttons(in: controller.view)
            if buttons.indices.contains(click) { buttons[click].sendActions() }
        }
        switch input.media {
        case "play": controller.mediaPlay()
        case "pause": controller.mediaPause()
        default: break
        }
        sendView()
    }

    private func sendView() {
        guard controller.isViewLoaded else { return }
        let size = controller.preferredContentSize
        send(
            ContentExtensionWire.Output(
                view: ViewSnapshot.of(controller.view), title: controller.title,
                preferredContentSize: size == .zero ? nil : .init(width: Double(size.width), height: Double(size.height)),
                mediaButton: sentFirstView ? nil : controller.mediaPlayPauseButtonType.rawValue))
        sentFirstView = true
    }
}
