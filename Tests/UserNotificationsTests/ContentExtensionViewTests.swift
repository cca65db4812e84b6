import Foundation
import HeraldTesting
import Testing
import UserNotifications
import UserNotificationsUI

/// The seeds' content extension, ported: only its view-building lines changed (no storyboard and outlets: the views
/// are made in `viewDidLoad()`), and `import UIKit` is gone, as the vocabulary is UserNotificationsUI's.
final class EpisodeViewController: UIViewController, UNNotificationContentExtension {
    let label = UILabel()
    let artwork = UIImageView()

    override func viewDidLoad() {
        super.viewDidLoad()
        let stack = UIStackView(arrangedSubviews: [label, artwork])
        stack.axis = .vertical
        view.addSubview(stack)
    }

    func didReceive(_ notification: UNNotification) {
        label.text = notification.request.content.body
        if let attachment = notification.request.content.attachments.first {
            artwork.image = UIImage(contentsOfFile: attachment.url.path)
        }
    }

    func didReceive(
        _ response: UNNotificationResponse, completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        if response.actionIdentifier == "LIKE" {
            label.text = "You liked this episode"
            completion(.doNotDismiss)
        } else {
            completion(.dismissAndForwardAction)
        }
    }
}

@MainActor @Suite struct ContentExtensionViewTests {
    private func episode(attaching url: URL?) throws -> UNNotification {
        let content = UNMutableNotificationContent()
        content.title = "New episode"
        content.body = "Episode 42: the one about push"
        content.categoryIdentifier = "new-episode"
        if let url { content.attachments = [try UNNotificationAttachment(identifier: "art", url: url, options: nil)] }
        return UNNotification(request: UNNotificationRequest(identifier: "e42", content: content, trigger: nil), date: Date())
    }

    @Test func thePortedExtensionDrawsTheBodyAndTheImageAndRedrawsOnAnAction() throws {
        let file = URL(fileURLWithPath: TemporaryPath.make("artwork", suffix: ".png"))
        try Data(AttachmentFixtures.png).write(to: file)
        let controller = EpisodeViewController()
        let notification = try episode(attaching: file)
        controller.didReceive(notification)
        #expect(
            ViewSnapshot.of(controller.view).text == [
                "Episode 42: the one about push", "[png image, \(AttachmentFixtures.png.count) bytes: \(file.path)]",
            ])

        var options: [UNNotificationContentExtensionResponseOption] = []
        controller.didReceive(UNNotificationResponse(notification: notification, actionIdentifier: "LIKE")) { options.append($0) }
        controller.didReceive(UNNotificationResponse(notification: notification, actionIdentifier: "SKIP")) { options.append($0) }
        #expect(options == [.doNotDismiss, .dismissAndForwardAction])
        #expect(ViewSnapshot.of(controller.view).text.first == "You liked this episode")
    }

    @Test func snapshotsCarryEveryDrawingAndNumberTheButtons() throws {
        let root = UIView()
        root.backgroundColor = .black
        let title = UILabel()
        title.text = "Score"
        title.font = .boldSystemFont(ofSize: 17)
        title.textColor = .white
        let progress = UIProgressView()
        progress.setProgress(0.25, animated: true)
        var taps: [String] = []
        let first = UIButton(type: .system, primaryAction: UIAction(title: "Home") { _ in taps.append("home") })
        let second = UIButton(type: .system)
        second.setTitle("Away", for: .normal)
        second.addAction(UIAction { _ in taps.append("away") }, for: .touchUpInside)
        let hidden = UILabel()
        hidden.text = "not shown"
        hidden.isHidden = true
        let row = UIStackView(arrangedSubviews: [first, second])
        for view in [title, progress, row, hidden] { root.addSubview(view) }

        let snapshot = ViewSnapshot.of(root)
        #expect(snapshot.text == ["Score", "[progress 25%]", "[0] Home", "[1] Away"])
        #expect(snapshot.background?.description == "#000000ff")
        #expect(snapshot.children[0].drawing == .label(text: "Score", color: .white, pointSize: 17, bold: true, lines: 1))
        #expect(snapshot.children[2].children.map(\.button) == [0, 1])
        let decoded = try JSONDecoder().decode(ViewSnapshot.self, from: JSONEncoder().encode(snapshot))
        #expect(decoded == snapshot)

        // A click names a button by its number; the buttons come in the same order.
        ViewSnapshot.buttons(in: root)[1].sendActions()
        ViewSnapshot.buttons(in: root)[0].sendActions()
        second.isEnabled = false
        second.sendActions()
        #expect(taps == ["away", "home"])
    }

    @Test func theExtensionContextPassesEachRequestToItsHost() {
        let context = NSExtensionContext()
        var requests: [NSExtensionContext.Request] = []
        context.onRequest = { requests.append($0) }
        context.mediaPlayingStarted()
        context.mediaPlayingPaused()
        context.notificationActions = [UNNotificationAction(identifier: "LIKE", title: "Like", options: [])]
        context.performNotificationDefaultAction()
        context.dismissNotificationContentExtension()
        #expect(
            requests == [
                .mediaPlayingStarted, .mediaPlayingPaused, .actionsChanged, .performNotificationDefaultAction, .dismissNotificationContentExtension,
            ])
        #expect(context.notificationActions.map(\.identifier) == ["LIKE"])
    }

    @Test func theViewIsBuiltOnFirstUse() {
        final class Counting: UIViewController {
            var loads = 0
            override func viewDidLoad() { loads += 1 }
        }
        let controller = Counting()
        #expect(!controller.isViewLoaded)
        _ = controller.view
        _ = controller.view
        #expect(controller.isViewLoaded && controller.loads == 1)
    }
}
