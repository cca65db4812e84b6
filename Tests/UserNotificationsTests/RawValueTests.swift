import Testing
import UserNotifications
import UserNotificationsUI

/// Raw values against the reference (`shared/reference/usernotifications.md`).
@Suite struct RawValueTests {
    @Test(arguments: [
        (UNAuthorizationOptions.badge, UInt(1)), (.sound, 2), (.alert, 4), (.carPlay, 8), (.criticalAlert, 16),
        (.providesAppNotificationSettings, 32), (.provisional, 64),
    ])
    func authorizationOptions(option: UNAuthorizationOptions, raw: UInt) {
        #expect(option.rawValue == raw)
    }

    @Test(arguments: [
        (UNNotificationPresentationOptions.badge, UInt(1)), (.sound, 2), (.alert, 4), (.list, 8), (.banner, 16),
    ])
    func presentationOptions(option: UNNotificationPresentationOptions, raw: UInt) {
        #expect(option.rawValue == raw)
    }

    @Test(arguments: [(UNNotificationActionOptions.authenticationRequired, UInt(1)), (.destructive, 2), (.foreground, 4)])
    func actionOptions(option: UNNotificationActionOptions, raw: UInt) {
        #expect(option.rawValue == raw)
    }

    @Test(arguments: [
        (UNNotificationCategoryOptions.customDismissAction, UInt(1)), (.allowInCarPlay, 2), (.hiddenPreviewsShowTitle, 4),
        (.hiddenPreviewsShowSubtitle, 8), (.allowAnnouncement, 16),
    ])
    func categoryOptions(option: UNNotificationCategoryOptions, raw: UInt) {
        #expect(option.rawValue == raw)
    }

    @Test(arguments: [
        (UNAuthorizationStatus.notDetermined, 0), (.denied, 1), (.authorized, 2), (.provisional, 3), (.ephemeral, 4),
    ])
    func authorizationStatus(status: UNAuthorizationStatus, raw: Int) {
        #expect(status.rawValue == raw && UNAuthorizationStatus(rawValue: raw) == status)
    }

    @Test(arguments: [(UNNotificationSetting.notSupported, 0), (.disabled, 1), (.enabled, 2)])
    func notificationSetting(setting: UNNotificationSetting, raw: Int) {
        #expect(setting.rawValue == raw)
    }

    @Test(arguments: [(UNAlertStyle.none, 0), (.banner, 1), (.alert, 2)])
    func alertStyle(style: UNAlertStyle, raw: Int) {
        #expect(style.rawValue == raw)
    }

    @Test(arguments: [(UNShowPreviewsSetting.always, 0), (.whenAuthenticated, 1), (.never, 2)])
    func showPreviews(setting: UNShowPreviewsSetting, raw: Int) {
        #expect(setting.rawValue == raw)
    }

    @Test(arguments: [
        (UNNotificationInterruptionLevel.passive, UInt(0)), (.active, 1), (.timeSensitive, 2), (.critical, 3),
    ])
    func interruptionLevel(level: UNNotificationInterruptionLevel, raw: UInt) {
        #expect(level.rawValue == raw)
    }

    @Test(arguments: [
        (UNNotificationContentExtensionResponseOption.doNotDismiss, UInt(0)), (.dismiss, 1), (.dismissAndForwardAction, 2),
    ])
    func contentExtensionResponseOption(option: UNNotificationContentExtensionResponseOption, raw: UInt) {
        #expect(option.rawValue == raw)
    }

    @Test(arguments: [
        (UNNotificationContentExtensionMediaPlayPauseButtonType.none, UInt(0)), (.default, 1), (.overlay, 2),
    ])
    func mediaPlayPauseButtonType(type: UNNotificationContentExtensionMediaPlayPauseButtonType, raw: UInt) {
        #expect(type.rawValue == raw)
    }

    @Test func optionSetsCombine() {
        let options: UNAuthorizationOptions = [.alert, .sound, .badge]
        #expect(options.rawValue == 7 && options.contains(.sound) && !options.contains(.provisional))
        #expect(UNNotificationPresentationOptions([.banner, .list]).rawValue == 24)
    }
}
