// The podcast app's content extension, the seed tutorial's ported: the expanded new-episode notification shows the
// episode's text and its cover (the image the service extension attached). "Later" changes the text and keeps the
// interface up (.doNotDismiss), smaller, as Apple documents resizing after load (preferredContentSize); "Listen"
// closes it and hands the action to the app (.dismissAndForwardAction).
// Only the view-building lines differ from the iOS original: views made in code instead of a storyboard.
import Foundation
import UserNotifications
import UserNotificationsUI

@main
final class NotificationViewController: UIViewController, UNNotificationContentExtension {
    let label = UILabel()
    let cover = UIImageView()

    override func viewDidLoad() {
        super.viewDidLoad()
        label.numberOfLines = 0
        let stack = UIStackView(arrangedSubviews: [label, cover])
        stack.axis = .vertical
        stack.spacing = 8
        view.addSubview(stack)
        // Room for the episode's text and its 240-point cover; the host draws the view as wide as the notification.
        preferredContentSize = CGSize(width: view.bounds.width, height: 300)
    }

    func didReceive(_ notification: UNNotification) {
        label.text = notification.request.content.body
        if let attachment = notification.request.content.attachments.first {
            cover.image = UIImage(contentsOfFile: attachment.url.path)
        }
    }

    func didReceive(
        _ response: UNNotificationResponse,
        completionHandler completion: @escaping (UNNotificationContentExtensionResponseOption) -> Void
    ) {
        if response.actionIdentifier == "later" {
            label.text = "Saved for later. We'll remind you tonight."
            cover.isHidden = true
            preferredContentSize = CGSize(width: view.bounds.width, height: 60)
            completion(.doNotDismiss)
        } else {
            completion(.dismissAndForwardAction)
        }
    }
}
