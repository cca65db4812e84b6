package import UserNotifications

/// The messages between the device daemon and a content extension process (docs/content-extensions.md).
///
/// Daemon → extension, on its standard input, one JSON object per line: `{"notification": NotificationRecord}` first
/// (and again when a notification with the same identifier replaces the shown one), then any of
/// `{"response": {"actionIdentifier":…, "userText":…}}`, `{"click": N}` (the view's button number N) and
/// `{"media": "play"|"pause"}`. Extension → daemon: one JSON object per line, on the descriptor
/// `HERALD_CONTENT_EXTENSION_FD` names (the daemon passes 3; standard output when run by hand): after each input the view as it is now,
/// `{"view": ViewSnapshot, "title":…, "preferredContentSize": {"width":…, "height":…}}` (the size only when the controller
/// set one); after a response `{"completion": 0|1|2}` (UNNotificationContentExtensionResponseOption);
/// what the extension asks through its context, `{"context": "mediaPlayingStarted"|…}`; and its actions, when it sets
/// them, `{"actions": [ActionRecord]}`. Everything it prints is its log.
package enum ContentExtensionWire {
    package static let outputDescriptorVariable = "HERALD_CONTENT_EXTENSION_FD"

    package struct Response: Codable, Sendable, Equatable {
        package var actionIdentifier: String
        package var userText: String?

        package init(actionIdentifier: String, userText: String? = nil) {
            self.actionIdentifier = actionIdentifier
            self.userText = userText
        }
    }

    /// One line on the extension's standard input.
    package struct Input: Codable, Sendable, Equatable {
        package var notification: NotificationRecord?
        package var response: Response?
        package var click: Int?
        package var media: String?

        package init(notification: NotificationRecord? = nil, response: Response? = nil, click: Int? = nil, media: String? = nil) {
            self.notification = notification
            self.response = response
            self.click = click
            self.media = media
        }
    }

    /// A size in points, as `UIViewController.preferredContentSize` gives it.
    package struct Size: Codable, Sendable, Equatable {
        package var width: Double
        package var height: Double

        package init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
    }

    /// One line from the extension.
    package struct Output: Codable, Sendable, Equatable {
        package var view: ViewSnapshot?
        package var title: String?
        /// The controller's `preferredContentSize` with each view, when it set one (not `.zero`).
        package var preferredContentSize: Size?
        /// The play/pause button the extension wants, with its first view.
        package var mediaButton: UInt?
        package var completion: UInt?
        package var context: String?
        package var actions: [ActionRecord]?

        package init(
            view: ViewSnapshot? = nil, title: String? = nil, preferredContentSize: Size? = nil, mediaButton: UInt? = nil,
            completion: UInt? = nil, context: String? = nil, actions: [ActionRecord]? = nil
        ) {
            self.view = view
            self.title = title
            self.preferredContentSize = preferredContentSize
            self.mediaButton = mediaButton
            self.completion = completion
            self.context = context
            self.actions = actions
        }
    }
}
