import ArgumentParser
import CoreLocation
import Foundation
import HeraldDevice
import HeraldWire
import UserNotifications

/// `herald device settings`: what the Settings app does for an app's notifications.
struct DeviceSettings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change an app's notification settings, as the Settings app does."
    )

    enum Switch: String, ExpressibleByArgument, CaseIterable { case on, off }

    @Option(help: "The app's bundle id.")
    var app: String

    @Flag(exclusivity: .exclusive, help: "Allow or deny the app's notifications.")
    var decision: Decision?

    enum Decision: String, EnumerableFlag { case allow, deny }

    @Option(help: "Alerts (banners and the notification list): on or off.")
    var alert: Switch?

    @Option(help: "Sounds: on or off.")
    var sound: Switch?

    @Option(help: "Badges: on or off.")
    var badge: Switch?

    @Option(
        name: .customLong("alert-style"),
        help: "How alerts show: banner (they go by themselves) or persistent (they stay until answered; iOS's .alert style).")
    var alertStyle: AlertStyle?

    enum AlertStyle: String, ExpressibleByArgument, CaseIterable { case banner, persistent }

    @Option(help: "Show previews (title and body): always, when-unlocked or never (the category's placeholder instead).")
    var previews: Previews?

    enum Previews: String, ExpressibleByArgument, CaseIterable {
        case always
        case whenUnlocked = "when-unlocked"
        case never

        var setting: UNShowPreviewsSetting {
            switch self {
            case .always: .always
            case .whenUnlocked: .whenAuthenticated
            case .never: .never
            }
        }

        init(_ setting: UNShowPreviewsSetting) {
            switch setting {
            case .always: self = .always
            case .whenAuthenticated: self = .whenUnlocked
            case .never: self = .never
            }
        }
    }

    @Option(
        name: .customLong("time-sensitive"),
        help:
            "Time Sensitive notifications (they keep their level and may break through a Focus): on or off; the app needs the time-sensitive entitlement."
    )
    var timeSensitive: Switch?

    @Option(
        name: .customLong("critical-alerts"),
        help: "Critical alerts (they always alert and play): on or off; the app needs the critical-alerts entitlement.")
    var criticalAlerts: Switch?

    @Option(
        name: .customLong("direct-messages"),
        help:
            "Direct messages (communication notifications) delivered at once, outside the scheduled summary: on or off; the app needs the communication entitlement."
    )
    var directMessages: Switch?

    @Flag(
        name: .customLong("open-app-settings"),
        help:
            "Open the app's own notification settings, as iOS's button for apps with providesAppNotificationSettings does (the device daemon asks the app)."
    )
    var openAppSettings = false

    @Option(name: .customLong("from-notification"), help: "With --open-app-settings: the delivered notification it is asked from.")
    var fromNotification: String?

    @Option(help: "Live Activities: on or off (apart from notifications, as on iOS).")
    var liveActivities: Switch?

    @Option(help: "More frequent Live Activity updates: on or off.")
    var frequentUpdates: Switch?

    @Option(name: .customLong("data-dir"), help: "Where apps keep their notification state (default: $HERALD_DATA_DIR, else $XDG_DATA_HOME/herald).")
    var dataDirectory: String = AppIdentity.dataDirectory().path

    @Flag(help: "Print the settings as JSON.")
    var json = false

    func validate() throws {
        if fromNotification != nil, !openAppSettings { throw ValidationError("--from-notification goes with --open-app-settings") }
    }

    func run() async throws {
        if openAppSettings {
            let delivery = try await RunningDaemon(dataDirectory: dataDirectory).openAppSettings(of: app, from: fromNotification)
            return printNow("\(app)'s notification settings: \(delivery)")
        }
        let store = try openDeviceStore(dataDirectory: dataDirectory)
        var settings = try store.settings(of: app) ?? SettingsRecord()
        let changing =
            decision != nil || alert != nil || sound != nil || badge != nil || previews != nil || timeSensitive != nil
            || criticalAlerts != nil || directMessages != nil || alertStyle != nil
        if changing {
            switch decision {
            case .allow?:
                if !settings.allowsDelivery {
                    let bundle = try InstalledApps(dataDirectory: URL(fileURLWithPath: dataDirectory)).app(bundleID: app)?.bundleDirectory
                    settings = .answered(true, options: [.alert, .sound, .badge], entitlements: AppEntitlements(bundleDirectory: bundle))
                }
            case .deny?:
                settings = .answered(false, options: [])
            case nil:
                guard settings.allowsDelivery else {
                    throw ValidationError(
                        "\(app) is \(settings.authorizationStatus.name); allow it first: herald device settings --app \(app) --allow")
                }
            }
            if let alert {
                settings.alertSetting = alert == .on ? .enabled : .disabled
                settings.notificationCenterSetting = settings.alertSetting
                settings.lockScreenSetting = settings.alertSetting
                settings.alertStyle = alert == .on ? .banner : .none
            }
            if let sound { settings.soundSetting = sound == .on ? .enabled : .disabled }
            if let badge { settings.badgeSetting = badge == .on ? .enabled : .disabled }
            if let previews { settings.showPreviewsSetting = previews.setting }
            if let alertStyle {
                guard settings.alertSetting == .enabled else {
                    throw ValidationError("\(app)'s alerts are off: turn them on first with --alert on")
                }
                settings.alertStyle = alertStyle == .persistent ? .alert : .banner
            }
            try applyEntitled(to: &settings)
            try store.setSettings(settings, of: app)
        }
        if liveActivities != nil || frequentUpdates != nil {
            // Apart from notifications: an app without notification permission may still have Live Activities.
            var latest = try store.settings(of: app) ?? settings
            if let liveActivities { latest.liveActivities = liveActivities == .on }
            if let frequentUpdates { latest.frequentUpdates = frequentUpdates == .on }
            try store.setSettings(latest, of: app)
            settings = latest
        }
        if json {
            let fields: [String: JSONValue] = [
                "app": .string(app), "authorizationStatus": .string(settings.authorizationStatus.name),
                "alert": .string(settings.alertSetting.name), "sound": .string(settings.soundSetting.name),
                "badge": .string(settings.badgeSetting.name), "badgeCount": .integer(Int64(try store.badge(of: app))),
                "previews": .string(Previews(settings.showPreviewsSetting).rawValue),
                "alertStyle": .string(settings.alertStyle == .alert ? "persistent" : settings.alertStyle == .banner ? "banner" : "none"),
                "timeSensitive": .string(settings.timeSensitiveSetting.name),
                "criticalAlerts": .string(settings.criticalAlertSetting.name),
                "directMessages": .string(settings.directMessagesSetting.name),
                "scheduledDelivery": .string(try store.summary().setting(of: app).name),
                "liveActivities": .string(settings.liveActivities ? "on" : "off"),
                "frequentUpdates": .string(settings.frequentUpdates ? "on" : "off"),
            ]
            printNow(String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self))
        } else {
            printNow(
                """
                \(app): \(settings.authorizationStatus.name)
                  alerts \(settings.alertSetting.name) · sounds \(settings.soundSetting.name) · badges \(settings.badgeSetting.name) · badge \(try store.badge(of: app)) · previews \(Previews(settings.showPreviewsSetting).rawValue)
                  time sensitive \(settings.timeSensitiveSetting.name) · critical alerts \(settings.criticalAlertSetting.name) · direct messages \(settings.directMessagesSetting.name) · scheduled summary \(try store.summary().setting(of: app).name)
                  Live Activities \(settings.liveActivities ? "on" : "off") · frequent updates \(settings.frequentUpdates ? "on" : "off")
                """)
        }
    }
}

extension DeviceSettings {
    /// The switches an entitlement stands behind. An installed app without the entitlement is refused, saying which key
    /// its bundle's `.entitlements` file lacks; an app not installed here (it runs its own engine) is taken at its word.
    private func applyEntitled(to settings: inout SettingsRecord) throws {
        let switches: [(Switch?, AppEntitlements, WritableKeyPath<SettingsRecord, UNNotificationSetting>, String)] = [
            (timeSensitive, .timeSensitive, \.timeSensitiveSetting, "--time-sensitive"),
            (criticalAlerts, .criticalAlerts, \.criticalAlertSetting, "--critical-alerts"),
            (directMessages, .communication, \.directMessagesSetting, "--direct-messages"),
        ]
        guard switches.contains(where: { $0.0 != nil }) else { return }
        let installed = try InstalledApps(dataDirectory: URL(fileURLWithPath: dataDirectory)).app(bundleID: app)
        let entitlements = installed.map { AppEntitlements(bundleDirectory: $0.bundleDirectory) }
        for (choice, entitlement, path, option) in switches {
            guard let choice else { continue }
            if choice == .on, let installed, let entitlements, !entitlements.contains(entitlement) {
                let key = AppEntitlements.keys.first { $0.1 == entitlement }?.0 ?? ""
                throw ValidationError(
                    "\(option) on: \(app) has no \(key) entitlement; add it (true) to a .entitlements file in \(installed.bundleDirectory.path) (Xcode's, copied into the bundle)"
                )
            }
            settings[keyPath: path] = choice == .on ? .enabled : .disabled
        }
    }
}

/// `herald device location LAT LON`: where this machine is, for location triggers.
struct DeviceLocation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "location",
        abstract: "Set this machine's location; apps' location triggers fire on entering or leaving their regions."
    )

    @Argument(help: "Latitude in degrees (-90…90).")
    var latitude: Double

    @Argument(help: "Longitude in degrees (-180…180).")
    var longitude: Double

    @Option(name: .customLong("data-dir"), help: "Where apps keep their notification state (default: $HERALD_DATA_DIR, else $XDG_DATA_HOME/herald).")
    var dataDirectory: String = AppIdentity.dataDirectory().path

    func run() async throws {
        let location = SimulatedLocation(dataDirectory: URL(fileURLWithPath: dataDirectory))
        do {
            try location.set(CLLocationCoordinate2D(latitude: latitude, longitude: longitude))
        } catch let error as SimulatedLocation.InvalidCoordinate {
            throw ValidationError("\(error)")
        } catch {
            throw ValidationError("cannot write \(location.path.path): \(error.localizedDescription)")
        }
        printNow("location \(latitude), \(longitude)")
    }
}

extension UNAuthorizationStatus {
    var name: String {
        switch self {
        case .notDetermined: "not determined"
        case .denied: "denied"
        case .authorized: "authorized"
        case .provisional: "provisional"
        case .ephemeral: "ephemeral"
        @unknown default: "unknown (\(rawValue))"
        }
    }
}

extension UNNotificationSetting {
    var name: String {
        switch self {
        case .notSupported: "not supported"
        case .disabled: "off"
        case .enabled: "on"
        @unknown default: "unknown (\(rawValue))"
        }
    }
}
