import Foundation
package import UserNotifications

/// One notification as a presenter shows it: its content (``NotificationCard``), the app it belongs to, and
/// what the person may do with it. The daemon builds it from the engine's card, the installed app and the app's
/// categories, so a presenter needs nothing else.
package struct Presentation: Sendable, Hashable {
    /// A delivered notification: the app's bundle id and the request identifier. A second presentation with the
    /// same id replaces the first, as iOS replaces a notification by identifier.
    package struct ID: Sendable, Hashable, CustomStringConvertible {
        package var bundleID: String
        package var identifier: String

        package init(bundleID: String, identifier: String) {
            self.bundleID = bundleID
            self.identifier = identifier
        }

        package var description: String { "\(bundleID)/\(identifier)" }
    }

    /// The app a notification comes from, as people know it.
    package struct App: Sendable, Hashable {
        package var bundleID: String
        /// `CFBundleDisplayName`, else `CFBundleName`, else the bundle id.
        package var displayName: String
        /// The app's icon file (`CFBundleIconFile`, else `AppIcon.png` in its bundle), if it has one.
        package var iconPath: String?
        /// The bundle's directory, where its sound files are; nil for an app that is not installed.
        package var bundleDirectory: String?
        /// The app's desktop entry id (`com.example.app` for `com.example.app.desktop` in an XDG `applications`
        /// directory), if it has one.
        package var desktopEntry: String?

        package init(
            bundleID: String, displayName: String? = nil, iconPath: String? = nil, bundleDirectory: String? = nil, desktopEntry: String? = nil
        ) {
            self.bundleID = bundleID
            self.displayName = displayName ?? bundleID
            self.iconPath = iconPath
            self.bundleDirectory = bundleDirectory
            self.desktopEntry = desktopEntry
        }

        /// An installed app as its bundle names it; an app that is not installed (`herald device --topic`) by its id.
        package init(_ manifest: AppManifest?, bundleID: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
            let exists = { (path: String) in FileManager.default.fileExists(atPath: path) ? path : nil }
            let icons = [manifest?.iconFile, "AppIcon.png"].compactMap { $0 }
            self.init(
                bundleID: bundleID, displayName: manifest?.displayName,
                iconPath: manifest.flatMap { manifest in
                    icons.lazy.compactMap { exists(manifest.bundleDirectory.appendingPathComponent($0).path) }.first
                },
                bundleDirectory: manifest?.bundleDirectory.path,
                desktopEntry: DesktopEntry.find(bundleID, environment: environment)
            )
        }
    }

    /// An action of the notification's category (`UNNotificationAction`, `UNTextInputNotificationAction`).
    package struct Action: Sendable, Hashable {
        package var identifier: String
        package var title: String
        package var isDestructive: Bool
        /// `.foreground`: choosing it brings the app up.
        package var opensApp: Bool
        /// `.authenticationRequired`.
        package var needsUnlock: Bool
        /// The text field of a text-input action: its button title and placeholder.
        package var textInput: ActionRecord.TextInput?

        package init(_ action: ActionRecord) {
            let options = UNNotificationActionOptions(rawValue: action.options)
            identifier = action.identifier
            title = action.title
            isDestructive = options.contains(.destructive)
            opensApp = options.contains(.foreground)
            needsUnlock = options.contains(.authenticationRequired)
            textInput = action.textInput
        }
    }

    package var id: ID
    package var app: App
    /// Title, subtitle, body, sound, badge, attachments (the first is the one shown), userInfo, date.
    package var card: NotificationCard
    /// The category's actions, in order; empty when it has none or no category.
    package var actions: [Action]
    /// The category asks to hear of dismissals (`.customDismissAction`).
    package var reportsDismissal: Bool
    /// What stands for the content when previews are hidden: the category's `hiddenPreviewsBodyPlaceholder`.
    package var hiddenPreviewsPlaceholder: String?
    /// With previews hidden, the title (`.hiddenPreviewsShowTitle`) and subtitle (`.hiddenPreviewsShowSubtitle`) still show.
    package var hiddenPreviewsShowTitle: Bool
    package var hiddenPreviewsShowSubtitle: Bool
    /// The category's `categorySummaryFormat`, for the line under a group of notifications ("%u more messages from %@").
    package var summaryFormat: String?
    /// The app has a content extension for the category: expanding the notification shows its view.
    package var hasContentExtension: Bool
    /// A communication notification's avatar, as a file (``AvatarFiles``); shown in place of the app's icon.
    package var senderAvatarPath: String?

    package init(card: NotificationCard, app: App, category: CategoryRecord?, hasContentExtension: Bool = false) {
        id = ID(bundleID: card.topic, identifier: card.identifier)
        self.app = app
        self.card = card
        // Delivered quietly (provisional authorization): Keep or Turn Off, as iOS 12 offers, after the category's.
        actions = (category?.actions.map(Action.init) ?? []) + (card.style.isQuiet ? ProvisionalChoice.actions : [])
        reportsDismissal = UNNotificationCategoryOptions(rawValue: category?.options ?? 0).contains(.customDismissAction)
        hiddenPreviewsPlaceholder = category?.hiddenPreviewsBodyPlaceholder.flatMap { $0.isEmpty ? nil : $0 }
        let options = UNNotificationCategoryOptions(rawValue: category?.options ?? 0)
        hiddenPreviewsShowTitle = options.contains(.hiddenPreviewsShowTitle)
        hiddenPreviewsShowSubtitle = options.contains(.hiddenPreviewsShowSubtitle)
        summaryFormat = category?.categorySummaryFormat.flatMap { $0.isEmpty ? nil : $0 }
        self.hasContentExtension = hasContentExtension
    }
}
