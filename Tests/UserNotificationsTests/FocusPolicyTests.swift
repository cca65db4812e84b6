import Foundation
import Testing

@testable import UserNotifications

/// iOS 15's rules for what alerts: interruption level × the app's settings × the Focus (NotificationCard.Style).
@Suite struct FocusPolicyTests {
    private static func content(_ level: UNNotificationInterruptionLevel, filter: String? = nil) throws -> ContentRecord {
        let content = UNMutableNotificationContent()
        content.title = "Hello"
        content.sound = .default
        content.interruptionLevel = level
        content.filterCriteria = filter
        return try ContentRecord(content)
    }

    private static func settings(_ entitlements: AppEntitlements, critical: Bool = false) -> SettingsRecord {
        .answered(true, options: critical ? [.alert, .sound, .criticalAlert] : [.alert, .sound], entitlements: entitlements)
    }

    private static func style(
        _ level: UNNotificationInterruptionLevel, settings: SettingsRecord, focus: Focus?, filter: String? = nil, app: String = "com.example.app"
    ) throws -> NotificationCard.Style {
        NotificationCard.Style(
            content: try content(level, filter: filter), bundleID: app, settings: settings, options: [.banner, .list, .sound], focus: focus)
    }

    /// Each row: level, entitlements (critical: asked for and entitled), Focus on, the Focus allowing time-sensitive →
    /// the level delivered, silenced or not, sound.
    static let matrix: [(UNNotificationInterruptionLevel, AppEntitlements, Bool, Bool, UNNotificationInterruptionLevel, Bool, Bool)] = [
        // No Focus: everything alerts at its level; passive is silent.
        (.passive, [], false, true, .passive, false, false),
        (.active, [], false, true, .active, false, true),
        (.timeSensitive, [.timeSensitive], false, true, .timeSensitive, false, true),
        (.critical, [.criticalAlerts, .timeSensitive], false, true, .critical, false, true),
        // Without the entitlement a level is lowered: critical → time-sensitive → active.
        (.timeSensitive, [], false, true, .active, false, true),
        (.critical, [.timeSensitive], false, true, .timeSensitive, false, true),
        (.critical, [], false, true, .active, false, true),
        // Focus on: passive and active are silenced (no sound), time-sensitive breaks through when both allow it,
        // critical always.
        (.passive, [], true, true, .passive, true, false),
        (.active, [.timeSensitive, .criticalAlerts], true, true, .active, true, false),
        (.timeSensitive, [.timeSensitive], true, true, .timeSensitive, false, true),
        (.timeSensitive, [.timeSensitive], true, false, .timeSensitive, true, false),
        (.timeSensitive, [], true, true, .active, true, false),
        (.critical, [.criticalAlerts], true, false, .critical, false, true),
    ]

    @Test(arguments: matrix.indices)
    func theLevelTheSettingsAndTheFocusDecide(row: Int) throws {
        let (level, entitlements, focusOn, allowsTimeSensitive, delivered, silenced, sound) = Self.matrix[row]
        var focus = Focus()
        focus.name = "Work"
        focus.allowsTimeSensitive = allowsTimeSensitive
        let style = try Self.style(
            level, settings: Self.settings(entitlements, critical: entitlements.contains(.criticalAlerts)), focus: focusOn ? focus : nil)
        #expect(style.interruptionLevel == delivered)
        #expect(style.silencedBy == (silenced ? "Work" : nil))
        #expect(style.playsSound == sound)
    }

    /// A person who turned the app's Time Sensitive switch off gets its time-sensitive notifications as active ones.
    @Test func theTimeSensitiveSwitchOffLowersTheLevel() throws {
        var settings = Self.settings(.timeSensitive)
        settings.timeSensitiveSetting = .disabled
        let style = try Self.style(.timeSensitive, settings: settings, focus: Focus())
        #expect(style.interruptionLevel == .active && style.silencedBy == "Do Not Disturb")
    }

    /// Critical alerts play past the app's sound switch; other levels follow it.
    @Test func criticalAlertsPlayWithTheSoundSwitchOff() throws {
        var settings = Self.settings([.criticalAlerts], critical: true)
        settings.soundSetting = .disabled
        #expect(try Self.style(.critical, settings: settings, focus: nil).playsSound)
        #expect(!(try Self.style(.active, settings: settings, focus: nil).playsSound))
    }

    /// Allowed apps alert; an app's Focus filter lets through only the notifications whose filterCriteria it names,
    /// allowed or not, while time-sensitive ones still break through.
    @Test func allowedAppsAndFocusFilters() throws {
        let settings = Self.settings(.timeSensitive)
        var focus = Focus()
        focus.allowedApps = ["com.example.chat"]
        #expect(try Self.style(.active, settings: settings, focus: focus, app: "com.example.chat").silencedBy == nil)
        #expect(try Self.style(.active, settings: settings, focus: focus, app: "com.example.other").silencedBy != nil)

        focus.filters["com.example.chat"] = ["work"]
        #expect(try Self.style(.active, settings: settings, focus: focus, filter: "work", app: "com.example.chat").silencedBy == nil)
        #expect(try Self.style(.active, settings: settings, focus: focus, filter: "home", app: "com.example.chat").silencedBy != nil)
        #expect(try Self.style(.active, settings: settings, focus: focus, app: "com.example.chat").silencedBy != nil)
        #expect(try Self.style(.timeSensitive, settings: settings, focus: focus, filter: "home", app: "com.example.chat").silencedBy == nil)
    }

    /// Provisional delivery is quiet already: the Focus does not count it as silenced.
    @Test func aQuietDeliveryIsNotSilenced() throws {
        let settings = SettingsRecord.answered(true, options: [.provisional])
        let style = try Self.style(.active, settings: settings, focus: Focus())
        #expect(style.isQuiet && style.silencedBy == nil && !style.playsSound)
    }

    /// What the person grants, with what the bundle is entitled to.
    @Test func authorizationSettingsFollowTheEntitlements() {
        let plain = SettingsRecord.answered(true, options: [.alert, .criticalAlert])
        #expect(plain.timeSensitiveSetting == .notSupported && plain.criticalAlertSetting == .notSupported)
        #expect(plain.directMessagesSetting == .notSupported && plain.scheduledDeliverySetting == .disabled)
        let entitled = SettingsRecord.answered(
            true, options: [.alert, .criticalAlert], entitlements: [.timeSensitive, .criticalAlerts, .communication])
        #expect(entitled.timeSensitiveSetting == .enabled && entitled.criticalAlertSetting == .enabled && entitled.directMessagesSetting == .enabled)
        let notAsked = SettingsRecord.answered(true, options: [.alert], entitlements: [.criticalAlerts])
        #expect(notAsked.criticalAlertSetting == .notSupported)
        let denied = SettingsRecord.answered(false, options: [.alert], entitlements: [.timeSensitive])
        #expect(denied.timeSensitiveSetting == .disabled)
    }

    @Test func entitlementsAreReadFromTheBundlesEntitlementsFile() throws {
        let bundle = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("Focus-\(UUID()).app")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bundle) }
        #expect(AppEntitlements(bundleDirectory: bundle) == [])
        let plist: [String: Any] = [
            "com.apple.developer.usernotifications.time-sensitive": true,
            "com.apple.developer.usernotifications.critical-alerts": false,
            "com.apple.developer.usernotifications.communication": true,
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        try data.write(to: bundle.appendingPathComponent("Chat.entitlements"))
        #expect(AppEntitlements(bundleDirectory: bundle) == [.timeSensitive, .communication])
        try Data("not a plist".utf8).write(to: bundle.appendingPathComponent("Chat.entitlements"))
        #expect(AppEntitlements(bundleDirectory: bundle) == [])
    }
}

/// When the Focus is on, and what people write for it.
@Suite struct FocusScheduleTests {
    private static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    /// 2026-11-30 is a Monday.
    private static func date(_ text: String) -> Date {
        try! Date("2026-11-30T\(text):00Z", strategy: .iso8601)
    }

    @Test func aScheduleAcrossMidnightBelongsToTheDayItStarts() throws {
        let nights = try Focus.Schedule(parsing: "mon-fri 22:00-07:00")
        #expect(nights.weekdays == Set(2...6) && nights.start == 22 * 60 && nights.end == 7 * 60)
        #expect(nights.contains(Self.date("23:30"), calendar: Self.calendar))
        #expect(!nights.contains(Self.date("12:00"), calendar: Self.calendar))
        // Monday 06:00 belongs to Sunday night, which is not in the schedule.
        #expect(!nights.contains(Self.date("06:00"), calendar: Self.calendar))
        #expect(nights.contains(Self.date("06:00").addingTimeInterval(86_400), calendar: Self.calendar))
        #expect(nights.text == "weekdays 22:00-07:00")
        #expect(try Focus.Schedule(parsing: "sat,sun 09:00-12:00").text == "weekends 09:00-12:00")
        #expect(try Focus.Schedule(parsing: "fri-mon 10:00-11:00").weekdays == [6, 7, 1, 2])
    }

    @Test(arguments: [
        ("weekdays", "is not a schedule"), ("someday 09:00-10:00", "is not a day"), ("daily 9-10", "is not a time span"),
        ("daily 24:00-10:00", "is not a time span"), ("daily 09:00-09:00", "starts and ends at the same time"),
    ])
    func aBadScheduleSaysWhatToWrite(text: String, message: String) {
        #expect(throws: Focus.TextError.self) { try Focus.Schedule(parsing: text) }
        do { _ = try Focus.Schedule(parsing: text) } catch { #expect(error.description.contains(message), "\(error)") }
    }

    @Test func theFocusIsOnByHandUntilItsEndByScheduleOrWithTheDesktop() throws {
        var focus = Focus()
        let now = Self.date("12:00")
        #expect(focus.reason(at: now, calendar: Self.calendar, desktopDoNotDisturb: false) == nil)
        #expect(focus.reason(at: now, calendar: Self.calendar, desktopDoNotDisturb: true) == .desktop)
        focus.followsDesktop = false
        #expect(focus.reason(at: now, calendar: Self.calendar, desktopDoNotDisturb: true) == nil)
        focus.schedules = [try Focus.Schedule(parsing: "mon 11:00-13:00")]
        #expect(focus.reason(at: now, calendar: Self.calendar, desktopDoNotDisturb: false) == .schedule)
        focus.isOn = true
        focus.until = Self.date("12:30")
        #expect(focus.reason(at: now, calendar: Self.calendar, desktopDoNotDisturb: false) == .manual(until: Self.date("12:30")))
        #expect(focus.reason(at: Self.date("14:00"), calendar: Self.calendar, desktopDoNotDisturb: false) == nil)
    }

    @Test func untilTakesAClockTimeADurationOrADate() throws {
        let now = Self.date("12:00")
        #expect(try Focus.end(parsing: "18:30", now: now, calendar: Self.calendar) == Self.date("18:30"))
        #expect(try Focus.end(parsing: "09:00", now: now, calendar: Self.calendar) == Self.date("09:00").addingTimeInterval(86_400))
        #expect(try Focus.end(parsing: "1h30m", now: now, calendar: Self.calendar) == Self.date("13:30"))
        let date = try Date("2026-12-01T08:00:00Z", strategy: .iso8601)
        #expect(try Focus.end(parsing: "2026-12-01T08:00:00Z", now: now, calendar: Self.calendar) == date)
        for bad in ["soon", "25:00", "h", "2020-01-01T00:00:00Z"] {
            #expect(throws: Focus.TextError.self, "\(bad)") { try Focus.end(parsing: bad, now: now, calendar: Self.calendar) }
        }
    }
}
