package import Foundation

/// One line of the local socket between the device daemon and an app (or `herald device respond`): a JSON
/// object per line. `docs/device-daemon.md` describes the protocol.
///
/// Apps call the daemon (`call` → `result` or `failure`, matched by `id`); the daemon asks apps
/// (`ask` → `answer`, matched by `id`). The app's bundle id never travels: the daemon knows it from the
/// connection's peer credentials.
package enum DaemonMessage: Codable, Sendable {
    case call(id: Int, call: DaemonCall)
    case result(id: Int, result: DaemonResult)
    /// `store`: the ``NotificationStoreError`` code when the daemon's store failed; `activity`: ActivityKit's
    /// `ActivityAuthorizationError` case when a Live Activity call was refused.
    case failure(id: Int, code: Int, message: String, store: String? = nil, activity: String? = nil)
    case ask(id: Int, question: DaemonQuestion)
    case answer(id: Int, options: UInt)

    package func encodedLine() throws -> Data {
        var data = try JSONEncoder.daemon.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    package static func decode(_ line: Data) throws -> DaemonMessage {
        try JSONDecoder.daemon.decode(DaemonMessage.self, from: line)
    }
}

/// What an app asks of the daemon: the `UNUserNotificationCenter` calls, made for the calling app.
package enum DaemonCall: Codable, Sendable {
    case settings
    case requestAuthorization(options: UInt)
    case add(request: RequestRecord)
    case pending
    case removePending(identifiers: [String]?)
    case delivered
    case removeDelivered(identifiers: [String]?)
    case categories
    case setCategories(categories: [CategoryRecord])
    case setBadge(count: Int)
    case registerForRemoteNotifications
    /// What the app handles now: `willPresent` and responses (a delegate is set), background pushes.
    case attach(delegate: Bool, remoteNotifications: Bool)
    /// The person's response to a delivered notification (`herald device respond`; the `herald` binary only).
    case respond(RespondRequest)
    /// A delivered notification to expand (`herald device show`; the `herald` binary only): it, its category's
    /// actions and its app's content extension.
    case expand(bundleID: String?, identifier: String)
    /// The person asked for the app's own notification settings (`herald device settings --open-app-settings`; the
    /// `herald` binary only), from Settings (no notification) or from a delivered notification.
    case openAppSettings(bundleID: String, identifier: String?)
    /// The app's Live Activities of one `ActivityAttributes` type, its push-to-start token and whether it may have
    /// them; with `watch`, this connection is asked about every change from now on.
    case activities(attributesType: String, watch: Bool)
    case requestActivity(ActivityRequestRecord)
    case changeActivity(ActivityChangeRecord)
}

/// `herald device respond`: which notification, which action, what text.
package struct RespondRequest: Codable, Sendable, Hashable {
    /// The app; nil when the identifier names one delivered notification of any app.
    package var bundleID: String?
    package var identifier: String
    /// An action of the notification's category, `open` (the default action) or `dismiss`.
    package var action: String
    package var text: String?

    package init(bundleID: String?, identifier: String, action: String, text: String?) {
        self.bundleID = bundleID
        self.identifier = identifier
        self.action = action
        self.text = text
    }
}

/// The daemon's answer to a call.
package enum DaemonResult: Codable, Sendable {
    case done
    case granted(Bool)
    case settings(SettingsRecord)
    case requests([RequestRecord])
    case notifications([NotificationRecord])
    case categories([CategoryRecord])
    case deviceToken(String)
    /// What became of a response: the app and action it went to, and whether the app was launched for it.
    case responded(bundleID: String, actionIdentifier: String, delivery: String)
    case expanded(ExpandedNotification)
    case activities(ActivitySnapshot)
    case activity(ActivityRecord)
}

/// A delivered notification as `herald device show` draws it.
package struct ExpandedNotification: Codable, Sendable {
    package var bundleID: String
    package var notification: NotificationRecord
    /// The actions of its category, as the app set them.
    package var actions: [ActionRecord]
    /// The executable of the app's content extension for its category, if it has one.
    package var contentExtension: String?
    /// The extension's `UNNotificationExtensionDefaultContentHidden`: only its view, not the title and body below it.
    package var defaultContentHidden: Bool
    /// The extension's `UNNotificationExtensionOverridesDefaultTitle`: its view controller's title replaces the app's name.
    package var overridesDefaultTitle: Bool
    /// The extension's `UNNotificationExtensionInitialContentSizeRatio`: its view's height over its width, at first.
    package var initialContentSizeRatio: Double?
    /// The extension's `UNNotificationExtensionUserInteractionEnabled`: its view's buttons take clicks; without it, a
    /// click on the view opens the app.
    package var userInteractionEnabled: Bool

    package init(
        bundleID: String, notification: NotificationRecord, actions: [ActionRecord], contentExtension: String?,
        defaultContentHidden: Bool = false, overridesDefaultTitle: Bool = false, initialContentSizeRatio: Double? = nil,
        userInteractionEnabled: Bool = false
    ) {
        self.bundleID = bundleID
        self.notification = notification
        self.actions = actions
        self.contentExtension = contentExtension
        self.defaultContentHidden = defaultContentHidden
        self.overridesDefaultTitle = overridesDefaultTitle
        self.initialContentSizeRatio = initialContentSizeRatio
        self.userInteractionEnabled = userInteractionEnabled
    }
}

/// What the daemon asks an app.
package enum DaemonQuestion: Codable, Sendable {
    /// A notification arrived while the app runs: how should it be presented? (answer: presentation options)
    case willPresent(NotificationRecord)
    /// A response or background push; answered once the app's handler has run.
    case event(AppEventRecord)
    /// One of the app's Live Activities of a watched type changed (started, updated, got its token, ended…).
    case activity(ActivityRecord)
    /// The app's push-to-start token changed.
    case pushToStartToken(String)
}

extension JSONEncoder {
    static var daemon: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }
}

extension JSONDecoder {
    static var daemon: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
