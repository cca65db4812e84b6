/// The values of a `UNNotificationSettings`, as the engine stores and builds them.
/// Encoded with each enum as its raw value.
package struct SettingsRecord: Codable, Sendable, Hashable {
    package var authorizationStatus: UNAuthorizationStatus = .notDetermined
    package var soundSetting: UNNotificationSetting = .notSupported
    package var badgeSetting: UNNotificationSetting = .notSupported
    package var alertSetting: UNNotificationSetting = .notSupported
    package var notificationCenterSetting: UNNotificationSetting = .notSupported
    package var lockScreenSetting: UNNotificationSetting = .notSupported
    package var carPlaySetting: UNNotificationSetting = .notSupported
    package var criticalAlertSetting: UNNotificationSetting = .notSupported
    package var announcementSetting: UNNotificationSetting = .notSupported
    package var timeSensitiveSetting: UNNotificationSetting = .notSupported
    package var scheduledDeliverySetting: UNNotificationSetting = .notSupported
    package var directMessagesSetting: UNNotificationSetting = .notSupported
    package var alertStyle: UNAlertStyle = .none
    package var showPreviewsSetting: UNShowPreviewsSetting = .always
    package var providesAppNotificationSettings = false
    /// The Settings app's Live Activities switch for the app (on until the person turns it off).
    package var liveActivities = true
    /// Its "More Frequent Updates" switch, for an app with `NSSupportsLiveActivitiesFrequentUpdates`.
    package var frequentUpdates = true

    /// Not determined, every feature `notSupported`, no alert style, previews always.
    package init() {}

    private enum CodingKeys: String, CodingKey {
        case authorizationStatus, soundSetting, badgeSetting, alertSetting, notificationCenterSetting
        case lockScreenSetting, carPlaySetting, criticalAlertSetting, announcementSetting, timeSensitiveSetting
        case scheduledDeliverySetting, directMessagesSetting, alertStyle, showPreviewsSetting
        case providesAppNotificationSettings, liveActivities, frequentUpdates
    }

    private static var settingKeys: [(CodingKeys, WritableKeyPath<SettingsRecord, UNNotificationSetting>)] {
        [
            (.soundSetting, \.soundSetting), (.badgeSetting, \.badgeSetting), (.alertSetting, \.alertSetting),
            (.notificationCenterSetting, \.notificationCenterSetting), (.lockScreenSetting, \.lockScreenSetting),
            (.carPlaySetting, \.carPlaySetting), (.criticalAlertSetting, \.criticalAlertSetting),
            (.announcementSetting, \.announcementSetting), (.timeSensitiveSetting, \.timeSensitiveSetting),
            (.scheduledDeliverySetting, \.scheduledDeliverySetting), (.directMessagesSetting, \.directMessagesSetting),
        ]
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authorizationStatus = try container.decodeRawValue(UNAuthorizationStatus.self, forKey: .authorizationStatus)
        for (key, path) in Self.settingKeys {
            self[keyPath: path] = try container.decodeRawValue(UNNotificationSetting.self, forKey: key)
        }
        alertStyle = try container.decodeRawValue(UNAlertStyle.self, forKey: .alertStyle)
        showPreviewsSetting = try container.decodeRawValue(UNShowPreviewsSetting.self, forKey: .showPreviewsSetting)
        providesAppNotificationSettings = try container.decode(Bool.self, forKey: .providesAppNotificationSettings)
        liveActivities = try container.decodeIfPresent(Bool.self, forKey: .liveActivities) ?? true
        frequentUpdates = try container.decodeIfPresent(Bool.self, forKey: .frequentUpdates) ?? true
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(authorizationStatus.rawValue, forKey: .authorizationStatus)
        for (key, path) in Self.settingKeys {
            try container.encode(self[keyPath: path].rawValue, forKey: key)
        }
        try container.encode(alertStyle.rawValue, forKey: .alertStyle)
        try container.encode(showPreviewsSetting.rawValue, forKey: .showPreviewsSetting)
        try container.encode(providesAppNotificationSettings, forKey: .providesAppNotificationSettings)
        try container.encode(liveActivities, forKey: .liveActivities)
        try container.encode(frequentUpdates, forKey: .frequentUpdates)
    }
}
