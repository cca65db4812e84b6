extension NotificationCard {
    /// How a notification may draw attention, once the app's settings and its `willPresent` options are applied;
    /// the engine sets it, surfaces that can make a sound or hold a bubble on screen follow it.
    package struct Style: Sendable, Hashable {
        /// The content's level; `.critical` only when critical alerts are authorized (else `.timeSensitive`).
        package var interruptionLevel: UNNotificationInterruptionLevel = .active
        /// The content has a sound, and the presentation options and the app's sound setting let it play.
        package var playsSound = false
        /// The sound file's name (`UNNotificationSoundName`); nil for the default sound.
        package var soundName: String?
        /// Provisional authorization: delivered quietly to the list, without a banner or a sound, as on iOS.
        package var isQuiet = false
        /// Previews are off (`showPreviewsSetting` `.never`): the category's placeholder stands for the content.
        package var hidesPreview = false

        package init() {}

        package init(content: ContentRecord, settings: SettingsRecord, options: UNNotificationPresentationOptions) {
            let level = UNNotificationInterruptionLevel(rawValue: content.interruptionLevel) ?? .active
            interruptionLevel = level == .critical && settings.criticalAlertSetting != .enabled ? .timeSensitive : level
            isQuiet = settings.authorizationStatus == .provisional
            playsSound =
                content.sound != nil && options.contains(.sound) && settings.soundSetting == .enabled && !isQuiet
                && interruptionLevel != .passive
            soundName = content.sound?.name
            hidesPreview = settings.showPreviewsSetting == .never
        }
    }
}
