import Foundation
import HeraldDBus
import UserNotifications

/// The arguments of one `Notify` call (freedesktop Desktop Notifications spec 1.2) for a presentation, shaped by
/// what the server advertises in `GetCapabilities`: each missing capability drops or folds its feature, none fails.
/// docs/desktop.md has the table.
struct DesktopNotification: Hashable {
    static let defaultAction = "default"
    static let inlineReplyAction = "inline-reply"
    /// "Show": opens the notification center page at the notification, expanded through its content extension.
    static let showAction = "herald-show"

    var appName: String
    var replacesID: UInt32
    var appIcon: String
    var summary: String
    var body: String
    /// Key, label, key, label…
    var actions: [String]
    var hints: [String: DBusValue]
    /// Milliseconds; -1: the server's default; 0: until closed.
    var expireTimeout: Int32
    /// The text-input action the server's inline reply answers (KDE), if any.
    var replyAction: String?
    /// Text-input actions left off the bubble: the server has no inline reply (or already has one).
    var omittedActions: [String] = []

    /// - Parameter canShow: the notification center page is served, so a notification with a content extension
    ///   gets a "Show" action.
    init(_ presentation: Presentation, capabilities: Set<String>, replacing replacesID: UInt32, canShow: Bool = false) {
        let card = presentation.card
        let style = card.style
        appName = presentation.app.displayName
        self.replacesID = replacesID
        appIcon = presentation.app.iconPath ?? ""
        if style.hidesPreview {
            let shown = [
                presentation.hiddenPreviewsShowTitle ? card.title : nil, presentation.hiddenPreviewsShowSubtitle ? card.subtitle : nil,
            ]
            let heading = shown.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " — ")
            summary = heading.isEmpty ? presentation.app.displayName : heading
            body = presentation.hiddenPreviewsPlaceholder ?? "Notification"
        } else if let sender = card.sender {
            // A communication notification: the sender (or the group) heads it, with the sender's avatar as its icon.
            appName = sender.groupName ?? sender.senderName
            appIcon = presentation.senderAvatarPath ?? appIcon
            summary = ([sender.groupName ?? sender.senderName] + [card.subtitle].compactMap { $0 }.filter { !$0.isEmpty }).joined(separator: " — ")
            body = (sender.groupName == nil ? "" : "\(sender.senderName): ") + (card.body ?? card.note ?? "")
        } else {
            let heading = [card.title, card.subtitle].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " — ")
            summary = heading.isEmpty ? presentation.app.displayName : heading
            body = card.body ?? card.note ?? ""
        }
        if !capabilities.contains("body") {
            if !body.isEmpty { summary += ": " + body }
            body = ""
        } else if capabilities.contains("body-markup") {
            body = Self.escapingMarkup(body)
        }

        hints = [:]
        actions = []
        if capabilities.contains("actions") {
            actions = [Self.defaultAction, "Open"]
            if canShow, presentation.hasContentExtension { actions += [Self.showAction, "Show"] }
            for action in presentation.actions {
                guard let input = action.textInput else {
                    actions += [action.identifier, action.title]
                    continue
                }
                if capabilities.contains("inline-reply"), replyAction == nil {
                    actions += [Self.inlineReplyAction, action.title]
                    hints["x-kde-reply-placeholder-text"] = .string(input.placeholder)
                    hints["x-kde-reply-submit-button-text"] = .string(input.buttonTitle)
                    replyAction = action.identifier
                } else {
                    omittedActions.append(action.identifier)
                }
            }
        }

        switch (style.isQuiet, style.interruptionLevel) {
        case (true, _): hints["urgency"] = .byte(0)
        case (false, .passive):
            hints["urgency"] = .byte(0)
            hints["transient"] = .boolean(true)
        case (false, .critical): hints["urgency"] = .byte(2)
        case (false, _): hints["urgency"] = .byte(1)
        }
        // Time-sensitive and critical alerts, and every alert of an app whose style is persistent, stay until answered.
        let stays = style.isPersistent || [.timeSensitive, .critical].contains(style.interruptionLevel)
        expireTimeout = !style.isQuiet && stays ? 0 : -1
        if let entry = presentation.app.desktopEntry { hints["desktop-entry"] = .string(entry) }
        if !style.hidesPreview, let image = card.thumbnail(where: Self.isImage) {
            hints["image-path"] = .string(URL(fileURLWithPath: image.path).absoluteString)
        }
        if style.playsSound {
            if let name = style.soundName, let bundle = presentation.app.bundleDirectory,
                FileManager.default.fileExists(atPath: bundle + "/" + name)
            {
                hints["sound-file"] = .string(bundle + "/" + name)
            } else {
                hints["sound-name"] = .string("message-new-instant")
            }
        } else {
            hints["suppress-sound"] = .boolean(true)
        }
    }

    /// A Live Activity's bubble: its title (or the alert's), the values and a progress bar — or the widget extension's
    /// view as text —, `value` for servers that draw a bar (dunst, GNOME), low urgency and no sound unless the change
    /// alerts.
    init(_ activity: ActivityPresentation, capabilities: Set<String>, replacing replacesID: UInt32) {
        appName = activity.app.displayName
        self.replacesID = replacesID
        appIcon = activity.app.iconPath ?? ""
        let phase = activity.phase == "active" ? "" : " (\(activity.phase))"
        // The first line (the title, or the widget's first label) heads the bubble unless the change alerts.
        var lines = activity.textLines
        let headline = lines.isEmpty ? activity.title : lines.removeFirst()
        if activity.alertTitle != nil { lines.insert(headline, at: 0) }
        summary = (activity.alertTitle ?? headline) + phase
        body = ([activity.alertBody].compactMap { $0 } + lines).filter { !$0.isEmpty }.joined(separator: "\n")
        if !capabilities.contains("body") {
            if !body.isEmpty { summary += ": " + body.replacingOccurrences(of: "\n", with: " · ") }
            body = ""
        } else if capabilities.contains("body-markup") {
            body = Self.escapingMarkup(body)
        }
        actions = []
        hints = ["category": .string("x-herald.live-activity")]
        if let progress = activity.shownProgress { hints["value"] = .int32(Int32((progress * 100).rounded())) }
        if let entry = activity.app.desktopEntry { hints["desktop-entry"] = .string(entry) }
        let alerts = activity.alertTitle != nil
        hints["urgency"] = .byte(alerts ? 1 : 0)
        if alerts { hints["sound-name"] = .string("message-new-instant") } else { hints["suppress-sound"] = .boolean(true) }
        // An activity stays on screen until it is dismissed, as on the Lock Screen.
        expireTimeout = 0
    }

    /// The scheduled summary's bubble: its title and count, then the most relevant notifications as "App: Title — body"
    /// (the app's placeholder when its previews are off) and how many more; low urgency and no sound, as iOS's summary
    /// arrives quietly.
    init(_ digest: NotificationSummary, _ presentations: [Presentation], capabilities: Set<String>) {
        appName = "Notification Summary"
        replacesID = 0
        appIcon = ""
        summary = "\(digest.title) · \(presentations.count) notification\(presentations.count == 1 ? "" : "s")"
        var lines = presentations.prefix(NotificationSummary.highlights).map { presentation in
            let card = presentation.card
            let words =
                card.style.hidesPreview
                ? presentation.hiddenPreviewsPlaceholder ?? "Notification"
                : [card.title, card.body].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " — ")
            return "\(presentation.app.displayName): \(words)"
        }
        if presentations.count > NotificationSummary.highlights {
            lines.append("and \(presentations.count - NotificationSummary.highlights) more")
        }
        body = lines.joined(separator: "\n")
        if !capabilities.contains("body") {
            summary += ": " + body.replacingOccurrences(of: "\n", with: " · ")
            body = ""
        } else if capabilities.contains("body-markup") {
            body = Self.escapingMarkup(body)
        }
        actions = []
        hints = ["category": .string("x-herald.summary"), "urgency": .byte(0), "suppress-sound": .boolean(true)]
        expireTimeout = -1
    }

    /// `Notify`'s arguments: `(susssasa{sv}i)`.
    var arguments: [DBusValue] {
        [
            .string(appName), .uint32(replacesID), .string(appIcon), .string(summary), .string(body), .strings(actions),
            .hints(hints), .int32(expireTimeout),
        ]
    }

    /// The markup servers with `body-markup` read: `&`, `<` and `>` escaped, so text shows as typed.
    static func escapingMarkup(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The attachment types a notification server draws (iOS shows the first attachment; an image here).
    private static func isImage(_ path: String) -> Bool {
        ["png", "jpg", "jpeg", "gif"].contains((path as NSString).pathExtension.lowercased())
    }
}
