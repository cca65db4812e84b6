public import Foundation

/// The app's notification settings: its authorization and what the user allowed.
///
/// ```swift
/// let settings = await UNUserNotificationCenter.current().notificationSettings()
/// guard settings.authorizationStatus == .authorized else { return }
/// ```
open class UNNotificationSettings: NSObject, NSCopying, @unchecked Sendable {
    // Immutable: every stored property is a `let` of a Sendable value.
    package let record: SettingsRecord

    package init(_ record: SettingsRecord) {
        self.record = record
    }

    /// Whether the app may post notifications.
    open var authorizationStatus: UNAuthorizationStatus { record.authorizationStatus }
    /// Whether notifications may play sounds.
    open var soundSetting: UNNotificationSetting { record.soundSetting }
    /// Whether notifications may badge the app.
    open var badgeSetting: UNNotificationSetting { record.badgeSetting }
    /// Whether notifications may show alerts.
    open var alertSetting: UNNotificationSetting { record.alertSetting }
    /// Whether notifications appear in the notification center.
    open var notificationCenterSetting: UNNotificationSetting { record.notificationCenterSetting }
    /// Whether notifications appear on the lock screen.
    open var lockScreenSetting: UNNotificationSetting { record.lockScreenSetting }
    /// Whether notifications appear in CarPlay.
    open var carPlaySetting: UNNotificationSetting { record.carPlaySetting }
    /// Whether critical alerts may play sounds.
    open var criticalAlertSetting: UNNotificationSetting { record.criticalAlertSetting }
    /// Whether Siri may announce notifications.
    open var announcementSetting: UNNotificationSetting { record.announcementSetting }
    /// Whether time-sensitive notifications break through Focus.
    open var timeSensitiveSetting: UNNotificationSetting { record.timeSensitiveSetting }
    /// Whether notifications are held for a scheduled summary.
    open var scheduledDeliverySetting: UNNotificationSetting { record.scheduledDeliverySetting }
    /// Whether direct-message notifications break through Focus.
    open var directMessagesSetting: UNNotificationSetting { record.directMessagesSetting }
    /// How alerts look.
    open var alertStyle: UNAlertStyle { record.alertStyle }
    /// When previews are shown.
    open var showPreviewsSetting: UNShowPreviewsSetting { record.showPreviewsSetting }
    /// Whether the app said it has its own notification settings screen.
    open var providesAppNotificationSettings: Bool { record.providesAppNotificationSettings }

    /// The settings themselves: they are immutable.
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// Settings are equal when every value is.
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? UNNotificationSettings)?.record == record
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        record.hashValue
    }
}
