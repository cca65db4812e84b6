public import Foundation
import UserNotifications

/// Whether the app may start Live Activities: it declares `NSSupportsLiveActivities` and the person has not turned them
/// off for it.
public struct ActivityAuthorizationInfo: Sendable {
    public init() {}

    /// False without a device daemon, for an app without `NSSupportsLiveActivities`, or with Live Activities turned off.
    public var areActivitiesEnabled: Bool {
        (try? ActivityRegistry.shared.snapshot(ofType: ""))?.enabled ?? false
    }

    /// `NSSupportsLiveActivitiesFrequentUpdates`, allowed by the person.
    public var frequentPushesEnabled: Bool {
        (try? ActivityRegistry.shared.snapshot(ofType: ""))?.frequentPushesEnabled ?? false
    }
}

/// Why `Activity.request` refused to start an activity.
public enum ActivityAuthorizationError: Error, Equatable, Hashable, Sendable, LocalizedError {
    /// The attributes and state together exceed 4 KB.
    case attributesTooLarge
    /// The person turned Live Activities off for the app.
    case denied
    case globalMaximumExceeded
    case malformedActivityIdentifier
    case missingProcessIdentifier
    /// The device could not keep the activity.
    case persistenceFailure
    case reconnectNotPermitted
    /// The app has as many activities as it may have.
    case targetMaximumExceeded
    /// The app does not declare `NSSupportsLiveActivities`.
    case unentitled
    /// The device has no Live Activities (no device daemon runs).
    case unsupported
    case unsupportedTarget
    case visibility

    init(name: String) {
        self =
            switch name {
            case "attributesTooLarge": .attributesTooLarge
            case "denied": .denied
            case "globalMaximumExceeded": .globalMaximumExceeded
            case "malformedActivityIdentifier": .malformedActivityIdentifier
            case "targetMaximumExceeded": .targetMaximumExceeded
            case "unentitled": .unentitled
            case "unsupportedTarget": .unsupportedTarget
            case "unsupported": .unsupported
            default: .persistenceFailure
            }
    }

    public var errorDescription: String? {
        switch self {
        case .attributesTooLarge: "The Live Activity's attributes and content state exceed 4 KB."
        case .denied: "Live Activities are turned off for this app."
        case .globalMaximumExceeded: "The device has as many Live Activities as it may have."
        case .malformedActivityIdentifier: "No Live Activity has this identifier."
        case .missingProcessIdentifier: "The process could not be identified."
        case .persistenceFailure: "The Live Activity could not be saved."
        case .reconnectNotPermitted: "The app may not reconnect to this Live Activity."
        case .targetMaximumExceeded: "The app has as many Live Activities as it may have."
        case .unentitled: "The app does not declare NSSupportsLiveActivities in its Info.plist."
        case .unsupported: "This device has no Live Activities: no device daemon (herald device) runs."
        case .unsupportedTarget: "Only apps can have Live Activities."
        case .visibility: "The app may start Live Activities only in the foreground."
        }
    }
}
