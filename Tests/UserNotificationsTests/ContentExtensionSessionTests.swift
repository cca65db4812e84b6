import Foundation
import Testing
import UserNotifications
import UserNotificationsUI

/// A content extension as the process host runs it: each input from the daemon calls the extension as iOS does, and
/// the view after it goes back, with the completion of an action and what the extension asks of its context.
@MainActor @Suite struct ContentExtensionSessionTests {
    final class ScoreViewController: UIViewController, UNNotificationContentExtension {
        let score = UILabel()
        var replies: [String] = []

        override func viewDidLoad() {
            title = "Live score"
            view.addSubview(score)
            view.addSubview(UIButton(type: .system, primaryAction: UIAction(title: "Refresh") { [unowned self] _ in score.text = "2 – 1" }))
        }

        func didReceive(_ notification: UNNotification) {
            score.text = notification.request.content.body
            extensionContext?.notificationActions = [UNNotificationAction(identifier: "MUTE", title: "Mute", options: [])]
        }

        func didReceive(
            _ response: UNNotificationResponse, completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
        ) {
            if let reply = response as? UNTextInputNotificationResponse { replies.append(reply.userText) }
            completion(response.actionIdentifier == "MUTE" ? .dismiss : .doNotDismiss)
        }

        var mediaPlayPauseButtonType: UNNotificationContentExtensionMediaPlayPauseButtonType { .overlay }

        func mediaPlay() { extensionContext?.mediaPlayingStarted() }
    }

    private func notification(_ body: String) throws -> NotificationRecord {
        let content = UNMutableNotificationContent()
        content.body = body
        return try NotificationRecord(
            UNNotification(request: UNNotificationRequest(identifier: "match", content: content, trigger: nil), date: Date()))
    }

    @Test func eachInputCallsTheExtensionAndSendsTheViewAfterIt() throws {
        var outputs: [ContentExtensionWire.Output] = []
        let controller = ScoreViewController()
        let session = ContentExtensionSession(controller: controller) { outputs.append($0) }

        session.handle(ContentExtensionWire.Input(notification: try notification("1 – 1")))
        #expect(outputs.map(\.actions?.first?.identifier) == ["MUTE", nil])
        #expect(outputs.last?.view?.text == ["1 – 1", "[0] Refresh"])
        #expect(outputs.last?.title == "Live score" && outputs.last?.mediaButton == 2)

        outputs.removeAll()
        session.handle(ContentExtensionWire.Input(click: 0))
        #expect(outputs.last?.view?.text.first == "2 – 1" && outputs.last?.mediaButton == nil)

        outputs.removeAll()
        session.handle(ContentExtensionWire.Input(response: .init(actionIdentifier: "REPLY", userText: "What a goal")))
        #expect(outputs.compactMap(\.completion) == [UNNotificationContentExtensionResponseOption.doNotDismiss.rawValue])
        #expect(controller.replies == ["What a goal"])
        session.handle(ContentExtensionWire.Input(response: .init(actionIdentifier: "MUTE")))
        #expect(outputs.compactMap(\.completion).last == UNNotificationContentExtensionResponseOption.dismiss.rawValue)

        outputs.removeAll()
        session.handle(ContentExtensionWire.Input(media: "play"))
        #expect(outputs.compactMap(\.context) == ["mediaPlayingStarted"])

        // A notification with the same identifier replaces the shown one: didReceive again, the view redrawn.
        outputs.removeAll()
        session.handle(ContentExtensionWire.Input(notification: try notification("3 – 1")))
        #expect(outputs.last?.view?.text.first == "3 – 1")
    }

    /// Resizing after load, as Apple documents it: the size set in viewDidLoad comes with the first view, a new one
    /// with the view drawn after the input that set it.
    @Test func thePreferredContentSizeComesWithEachView() throws {
        final class GrowingViewController: UIViewController, UNNotificationContentExtension {
            override func viewDidLoad() {
                view.addSubview(UILabel())
                preferredContentSize = CGSize(width: 320, height: 180)
            }
            func didReceive(_ notification: UNNotification) {}
            func didReceive(
                _ response: UNNotificationResponse, completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
            ) {
                preferredContentSize = CGSize(width: view.bounds.width, height: 400)
                completion(.doNotDismiss)
            }
        }
        var outputs: [ContentExtensionWire.Output] = []
        let session = ContentExtensionSession(controller: GrowingViewController()) { outputs.append($0) }
        session.handle(ContentExtensionWire.Input(notification: try notification("Gate B12")))
        #expect(outputs.last?.preferredContentSize == .init(width: 320, height: 180))
        session.handle(ContentExtensionWire.Input(response: .init(actionIdentifier: "MORE")))
        #expect(outputs.last?.view != nil)
        #expect(outputs.last?.preferredContentSize == .init(width: 0, height: 400))

        // A controller that sets none sends none: the Info.plist's ratio decides.
        outputs.removeAll()
        let unsized = ContentExtensionSession(controller: ScoreViewController()) { outputs.append($0) }
        unsized.handle(ContentExtensionWire.Input(notification: try notification("0 – 0")))
        #expect(outputs.last?.view != nil && outputs.last?.preferredContentSize == nil)
    }

    @Test func aClickOnAButtonThatIsNotThereChangesNothing() throws {
        var outputs: [ContentExtensionWire.Output] = []
        let session = ContentExtensionSession(controller: ScoreViewController()) { outputs.append($0) }
        session.handle(ContentExtensionWire.Input(notification: try notification("0 – 0")))
        session.handle(ContentExtensionWire.Input(click: 7))
        #expect(outputs.last?.view?.text.first == "0 – 0")
    }

    @Test func theWireReadsBackAsSent() throws {
        let input = ContentExtensionWire.Input(response: .init(actionIdentifier: "REPLY", userText: "hi"), click: 1, media: "pause")
        #expect(try JSONDecoder().decode(ContentExtensionWire.Input.self, from: JSONEncoder().encode(input)) == input)
    }
}
