#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Who answers an app's first `requestAuthorization`: the person at the terminal, or `HERALD_AUTHORIZATION`.
package protocol AuthorizationPrompt: Sendable {
    /// True to allow, false to deny, nil when nobody can answer (no terminal and no `HERALD_AUTHORIZATION`).
    func ask(bundleID: String, options: UNAuthorizationOptions) async -> Bool?
}

/// `HERALD_AUTHORIZATION=grant|deny` for non-interactive runs; otherwise a question on the terminal.
package struct TerminalAuthorizationPrompt: AuthorizationPrompt {
    private let environment: [String: String]

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
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
    package static func answered(_ allowed: Bool, options: UNAuthorizationOptions) -> SettingsRecord {
        var settings = SettingsRecord()
        settings.authorizationStatus = allowed ? (options.contains(.provisional) ? .provisional : .authorized) : .denied
        let enabled = { (option: UNAuthorizationOptions) -> UNNotificationSetting in
            allowed && options.contains(option) ? .enabled : .disabled
        }
        settings.alertSetting = enabled(.alert)
        settings.soundSetting = enabled(.sound)
        settings.badgeSetting = enabled(.badge)
        settings.notificationCenterSetting = allowed ? .enabled : .disabled
        settings.lockScreenSetting = allowed && options.contains(.alert) ? .enabled : .disabled
        settings.carPlaySetting = options.contains(.carPlay) ? enabled(.carPlay) : .notSupported
        settings.criticalAlertSetting = options.contains(.criticalAlert) ? enabled(.criticalAlert) : .notSupported
        settings.alertStyle = allowed && options.contains(.alert) ? .banner : .none
        settings.providesAppNotificationSettings = options.contains(.providesAppNotificationSettings)
        return settings
    }

    /// Whether notifications may be delivered at all.
    package var allowsDelivery: Bool {
        [.authorized, .provisional, .ephemeral].contains(authorizationStatus)
    }
}
