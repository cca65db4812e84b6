import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Who answers an app's first `requestAuthorization`: the person at the terminal, or `HERALD_AUTHORIZATION`.
package protocol AuthorizationPrompt: Sendable {
    /// True to allow, false to deny, nil when nobody can answer (no terminal and no `HERALD_AUTHORIZATION`).
    func ask(bundleID: String, options: UNAuthorizationOptions) async -> Bool?
    /// Where the question went and how to answer it, for an app whose question nobody could answer.
    func unanswered(bundleID: String) -> String
}

extension AuthorizationPrompt {
    package func unanswered(bundleID: String) -> String {
        "nobody could answer \(bundleID)'s request to send notifications; allow it with `herald device settings --app \(bundleID) --allow`"
    }
}

/// `HERALD_AUTHORIZATION=grant|deny` for non-interactive runs; otherwise a question on the terminal.
package struct TerminalAuthorizationPrompt: AuthorizationPrompt {
    /// Whose terminal and environment answer: the app's own (no daemon runs), or the device daemon's, which
    /// answers for every app while it runs.
    package enum Asker: Sendable {
        case app, daemon
    }

    private let environment: [String: String]
    private let asker: Asker

    package init(environment: [String: String] = ProcessInfo.processInfo.environment, asker: Asker = .app) {
        self.environment = environment
        self.asker = asker
    }

    package func unanswered(bundleID: String) -> String {
        switch asker {
        case .app:
            "nobody could answer \(bundleID)'s request to send notifications: run it in a terminal, set "
                + "HERALD_AUTHORIZATION=grant (or deny), or allow it with `herald device settings --app \(bundleID) --allow`"
        case .daemon:
            "\(bundleID)'s request to send notifications went to the device daemon (`herald device`), which answers for "
                + "every app while it runs, and it has no terminal to ask on and no HERALD_AUTHORIZATION of its own (the "
                + "app's does not count): allow it with `herald device settings --app \(bundleID) --allow`, or run the "
                + "daemon in a terminal or with HERALD_AUTHORIZATION=grant"
        }
    }

    package func ask(bundleID: String, options: UNAuthorizationOptions) async -> Bool? {
        switch environment["HERALD_AUTHORIZATION"]?.lowercased() {
        case "grant", "allow", "yes": return true
        case "deny", "no": return false
        default: break
        }
        guard isatty(STDIN_FILENO) == 1, isatty(STDERR_FILENO) == 1 else { return nil }
        let kinds = Self.describe(options)
        let question = "“\(bundleID)” would like to send you notifications\(kinds.isEmpty ? "" : " (\(kinds))"). Allow? [y/N] "
        FileHandle.standardError.write(Data(question.utf8))
        // readLine blocks; keep it off Swift's cooperative threads.
        let line = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            Thread.detachNewThread { continuation.resume(returning: readLine()) }
        }
        return line.map { ["y", "yes", "allow"].contains($0.trimmingCharacters(in: .whitespaces).lowercased()) } ?? false
    }

    static func describe(_ options: UNAuthorizationOptions) -> String {
        let names: [(UNAuthorizationOptions, String)] = [
            (.alert, "alerts"), (.sound, "sounds"), (.badge, "badges"), (.criticalAlert, "critical alerts"), (.carPlay, "CarPlay"),
        ]
        return names.filter { options.contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

extension SettingsRecord {
    /// Settings after the user answered: what was asked for is enabled when allowed, everything disabled when denied.
    /// The entitlements decide what asking cannot: time-sensitive delivery, critical alerts (asked for and entitled),
    /// direct messages.
    package static func answered(_ allowed: Bool, options: UNAuthorizationOptions, entitlements: AppEntitlements = []) -> SettingsRecord {
        var settings = SettingsRecord()
        settings.authorizationStatus = allowed ? (options.contains(.provisional) ? .provisional : .authorized) : .denied
        let enabled = { (option: UNAuthorizationOptions) -> UNNotificationSetting in
            allowed && options.contains(option) ? .enabled : .disabled
        }
        let entitled = { (entitlement: AppEntitlements) -> UNNotificationSetting in
            entitlements.contains(entitlement) ? (allowed ? .enabled : .disabled) : .notSupported
        }
        settings.alertSetting = enabled(.alert)
        settings.soundSetting = enabled(.sound)
        settings.badgeSetting = enabled(.badge)
        settings.notificationCenterSetting = allowed ? .enabled : .disabled
        settings.lockScreenSetting = allowed && options.contains(.alert) ? .enabled : .disabled
        settings.carPlaySetting = options.contains(.carPlay) ? enabled(.carPlay) : .notSupported
        settings.criticalAlertSetting =
            options.contains(.criticalAlert) && entitlements.contains(.criticalAlerts) ? enabled(.criticalAlert) : .notSupported
        settings.timeSensitiveSetting = entitled(.timeSensitive)
        settings.directMessagesSetting = entitled(.communication)
        settings.scheduledDeliverySetting = .disabled
        settings.alertStyle = allowed && options.contains(.alert) ? .banner : .none
        settings.providesAppNotificationSettings = options.contains(.providesAppNotificationSettings)
        return settings
    }

    /// Whether notifications may be delivered at all.
    package var allowsDelivery: Bool {
        [.authorized, .provisional, .ephemeral].contains(authorizationStatus)
    }
}
