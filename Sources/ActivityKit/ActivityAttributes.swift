public import Foundation

/// The data of a Live Activity: static attributes (this type's stored properties) and the dynamic state the app and
/// its provider update (`ContentState`). The type's name is the `attributes-type` a push-to-start payload names.
public protocol ActivityAttributes: Decodable, Encodable {
    associatedtype ContentState: Decodable, Encodable, Hashable
}

/// What a Live Activity shows now: its state, when that state goes stale, and how it ranks among the app's activities.
public struct ActivityContent<State>: Equatable, Hashable where State: Decodable, State: Encodable, State: Hashable {
    public var state: State
    /// When the system marks the content outdated (``ActivityState/stale``); nil: never.
    public var staleDate: Date?
    /// Which of the app's activities comes first where several are shown (higher first).
    public var relevanceScore: Double

    public init(state: State, staleDate: Date?, relevanceScore: Double = 0.0) {
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }
}

/// Where a Live Activity is in its life.
public enum ActivityState: Equatable, Hashable, Sendable {
    case active
    /// Ended, still shown until it is dismissed.
    case ended
    /// Gone from every surface.
    case dismissed
    /// Active, past its content's stale date.
    case stale
}

/// When an ended Live Activity leaves the screen.
public struct ActivityUIDismissalPolicy: Equatable, Hashable, Sendable {
    enum Policy: Hashable, Sendable {
        case standard, immediate
        case after(Date)
    }

    let policy: Policy

    /// Up to four hours after the end, or when the person dismisses it.
    public static let `default` = ActivityUIDismissalPolicy(policy: .standard)
    public static let immediate = ActivityUIDismissalPolicy(policy: .immediate)
    /// At `date`, at most four hours after the end.
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy { ActivityUIDismissalPolicy(policy: .after(date)) }
}

/// How a Live Activity takes remote updates.
public struct PushType: Equatable, Hashable, Sendable {
    let channelID: String?

    /// Pushes to a token of the activity's own (``Activity/pushToken``).
    public static let token = PushType(channelID: nil)
    /// Broadcasts on a channel made with the channel management API (iOS 18).
    public static func channel(_ channelId: String) -> PushType { PushType(channelID: channelId) }
}

/// An alert for an update: the person is told of it, as iOS lights the screen and expands the activity.
public struct AlertConfiguration: Sendable {
    /// The sound of the alert.
    public struct AlertSound: Equatable, Hashable, Sendable {
        let name: String?

        public static let `default` = AlertSound(name: nil)
        public static func named(_ name: String) -> AlertSound { AlertSound(name: name) }
    }

    public var title: String
    public var body: String
    public var sound: AlertSound

    /// Apple's `title` and `body` are `LocalizedStringResource`, which Foundation does not have on Linux: string
    /// literals compile unchanged.
    public init(title: String, body: String, sound: AlertSound) {
        self.title = title
        self.body = body
        self.sound = sound
    }
}
