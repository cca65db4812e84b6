extension NotificationCard {
    /// How a notification may draw attention, once the app's settings, its `willPresent` options and the Focus are
    /// applied (iOS 15's rules); the engine sets it, surfaces that can make a sound or hold a bubble on screen follow it.
    package struct Style: Sendable, Hashable {
        /// The level it is delivered at: `.critical` only with critical alerts authorized (else time-sensitive), and
        /// `.timeSensitive` only when the app's Time Sensitive setting is on (else active).
        package var interruptionLevel: UNNotificationInterruptionLevel = .active
        /// The content has a sound, and the presentation options and the app's sound setting let it play.
        package var playsSound = false
        /// The sound file's name (`UNNotificationSoundName`); nil for the default sound.
        package var soundName: String?
        /// Provisional authorization: delivered quietly to the list, without a banner or a sound, as on iOS.
        package var isQuiet = false
        /// Previews are off (`showPreviewsSetting` `.never`): the category's placeholder stands for the content.
        package var hidesPreview = false
        /// The Focus that silenced it: listed, without a banner or a sound. Nil when it may alert.
        package var silencedBy: String?
        /// It arrived with the scheduled summary: listed, and shown as part of the summary rather than on its own.
        package var inSummary = false
        /// A communication notification of an entitled app: its sender is shown in place of the app.
        package var isCommunication = false
        /// It may show a banner (the app's alert setting and `willPresent`'s `.banner` allow it). Without one it is in
        /// the notification list only: the list and scripts see it, the desktop shows no bubble.
        package var showsBanner = true
        /// The app's alert style is `.alert` (Settings' "Persistent"): its banners stay until answered.
        package var isPersistent = false

        package init() {}

        /// - Parameter focus: the Focus that is on, if one is.
        package init(
            content: ContentRecord, bundleID: String, settings: SettingsRecord, options: UNNotificationPresentationOptions,
            focus: Focus? = nil
        ) {
            interruptionLevel = Self.level(content, settings: settings)
            isQuiet = settings.authorizationStatus == .provisional
            hidesPreview = settings.showPreviewsSetting == .never
            isPersistent = settings.alertStyle == .alert
            isCommunication = content.communication != nil && settings.directMessagesSetting != .notSupported
            if let focus, !isQuiet,
                !Self.breaksThrough(focus, level: interruptionLevel, content: content, bundleID: bundleID, isCommunication: isCommunication)
            {
                silencedBy = focus.name
            }
            // A critical alert plays past the app's sound setting (the person granted critical alerts for that).
            let soundAllowed = interruptionLevel == .critical || settings.soundSetting == .enabled
            playsSound =
                content.sound != nil && options.contains(.sound) && soundAllowed && !isQuiet && interruptionLevel != .passive
                && silencedBy == nil
            soundName = content.sound?.name
        }

        private static func level(_ content: ContentRecord, settings: SettingsRecord) -> UNNotificationInterruptionLevel {
            var level = UNNotificationInterruptionLevel(rawValue: content.interruptionLevel) ?? .active
            if level == .critical, settings.criticalAlertSetting != .enabled { level = .timeSensitive }
            if level == .timeSensitive, settings.timeSensitiveSetting != .enabled { level = .active }
            return level
        }

        /// Whether a notification alerts while `focus` is on: critical ones always, time-sensitive ones when the Focus
        /// allows them, messages from the people it allows; then the app's Focus filter, when it has one, decides
        /// alone; else whether the Focus allows the app.
        private static func breaksThrough(
            _ focus: Focus, level: UNNotificationInterruptionLevel, content: ContentRecord, bundleID: String, isCommunication: Bool
        ) -> Bool {
            if level == .critical { return true }
            if level == .passive { return false }
            if level == .timeSensitive, focus.allowsTimeSensitive { return true }
            if isCommunication, let sender = content.communication, focus.allows(sender) { return true }
            if let filter = focus.filters[bundleID] { return content.filterCriteria.map(filter.contains) ?? false }
            return focus.allowedApps.contains(bundleID)
        }
    }
}
