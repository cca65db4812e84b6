package import UserNotifications

/// What iOS 12 offers on a notification delivered quietly under provisional authorization: Keep (prominently, or
/// quietly) or Turn Off. Every surface shows them as actions of the notification; the choice changes the app's
/// settings, as the Settings app would, and the app is not told (it reads its settings).
package enum ProvisionalChoice: String, CaseIterable, Sendable {
    case deliverProminently = "herald.deliver-prominently"
    case deliverQuietly = "herald.deliver-quietly"
    case turnOff = "herald.turn-off"

    package var title: String {
        switch self {
        case .deliverProminently: "Keep: Deliver Prominently"
        case .deliverQuietly: "Keep: Deliver Quietly"
        case .turnOff: "Turn Off"
        }
    }

    /// The actions a quiet notification offers.
    package static var actions: [Presentation.Action] {
        allCases.map { choice in
            let options: UNNotificationActionOptions = choice == .turnOff ? [.destructive] : []
            return Presentation.Action(ActionRecord(UNNotificationAction(identifier: choice.rawValue, title: choice.title, options: options)))
        }
    }

    /// The settings after the choice: prominently — alerts, sounds and badges; quietly — the notification list only;
    /// off — denied.
    package func settings(entitlements: AppEntitlements) -> SettingsRecord {
        switch self {
        case .deliverProminently:
            return .answered(true, options: [.alert, .sound, .badge], entitlements: entitlements)
        case .deliverQuietly:
            var settings = SettingsRecord.answered(true, options: [], entitlements: entitlements)
            settings.lockScreenSetting = .disabled
            return settings
        case .turnOff:
            return .answered(false, options: [], entitlements: entitlements)
        }
    }
}
