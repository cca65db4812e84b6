public import Foundation
import Synchronization
import UserNotifications

/// A Live Activity of the app: started by the app (``request(attributes:content:pushType:)``) or by a push to its
/// push-to-start token, updated by the app or by pushes, ended by either. The device daemon (`herald device`) keeps it;
/// this object reads what the daemon last said.
public final class Activity<Attributes: ActivityAttributes>: Identifiable, Sendable {
    public typealias ContentState = Attributes.ContentState
    public typealias ContentUpdates = ActivityEvents<ActivityContent<ContentState>>
    public typealias ActivityStateUpdates = ActivityEvents<ActivityState>
    public typealias PushTokenUpdates = ActivityEvents<Data>
    public typealias ActivityUpdates = ActivityEvents<Activity<Attributes>>
    public typealias PushToStartTokenUpdates = ActivityEvents<Data>

    public let id: String
    /// The latest record whose state this type decodes: a push whose `content-state` does not decode changes nothing
    /// this object shows.
    private let shown: Mutex<ActivityRecord>

    /// An activity of this type, if its state decodes as this type's `ContentState`.
    init?(record: ActivityRecord) {
        guard Self.content(of: record) != nil else { return nil }
        id = record.id
        shown = Mutex(record)
    }

    /// The type's name, as a provider's `attributes-type` names it.
    static var typeName: String { String(describing: Attributes.self) }

    /// The daemon's latest record of it, when its state decodes.
    private var record: ActivityRecord {
        shown.withLock { shown in
            if let latest = ActivityRegistry.shared.record(id), latest != shown, Self.content(of: latest) != nil { shown = latest }
            return shown
        }
    }

    public var attributes: Attributes {
        // Encoded by this type, or sent by a provider naming it (as on iOS, attributes that do not decode are a bug in
        // the provider's payload).
        do {
            return try JSONDecoder().decode(Attributes.self, from: record.attributes)
        } catch {
            fatalError("the attributes of Live Activity \(id) do not decode as \(Attributes.self): \(error)")
        }
    }

    public var content: ActivityContent<ContentState> {
        Self.content(of: record)!  // `record` decodes: see init
    }

    public var activityState: ActivityState {
        Self.state(of: record)
    }

    /// The activity's push token, once the gateway gave it (``PushType/token`` only).
    public var pushToken: Data? {
        record.pushToken.flatMap(Data.init(hex:))
    }

    public var contentUpdates: ContentUpdates {
        let id = self.id
        return ActivityEvents(seen: content, isSame: ==) { update in
            guard case .activity(let record, _) = update, record.id == id else { return nil }
            return Self.content(of: record)
        }
    }

    public var activityStateUpdates: ActivityStateUpdates {
        let id = self.id
        return ActivityEvents(seen: activityState, isSame: ==) { update in
            guard case .activity(let record, _) = update, record.id == id else { return nil }
            return Self.state(of: record)
        }
    }

    /// The token when it comes, and each new one; the current one first when there is one.
    public var pushTokenUpdates: PushTokenUpdates {
        let id = self.id
        return ActivityEvents(first: pushToken, isSame: ==) { update in
            guard case .activity(let record, _) = update, record.id == id else { return nil }
            return record.pushToken.flatMap(Data.init(hex:))
        }
    }

    // MARK: The app's activities of this type

    /// This type's activities not yet dismissed.
    public static var activities: [Activity<Attributes>] {
        ActivityRegistry.shared.activities(ofType: typeName).compactMap { Activity(record: $0) }
    }

    /// Each activity of this type that starts from now on, by the app or by a push.
    public static var activityUpdates: ActivityUpdates {
        let type = typeName
        _ = try? ActivityRegistry.shared.snapshot(ofType: type)
        return ActivityEvents { update in
            guard case .activity(let record, isNew: true) = update, record.attributesType == type else { return nil }
            return Activity(record: record)
        }
    }

    /// The app's push-to-start token: a `liveactivity` push with `"event": "start"` to it starts an activity.
    public static var pushToStartToken: Data? {
        ActivityRegistry.shared.pushToStartToken(ofType: typeName).flatMap(Data.init(hex:))
    }

    public static var pushToStartTokenUpdates: PushToStartTokenUpdates {
        ActivityEvents(first: pushToStartToken, isSame: ==) { update in
            guard case .pushToStartToken(let token) = update else { return nil }
            return Data(hex: token)
        }
    }

    // MARK: Starting, updating, ending

    /// Starts an activity.
    ///
    /// - Parameter pushType: nil (only the app updates it), ``PushType/token`` (a token of its own for pushes), or
    ///   ``PushType/channel(_:)`` (a broadcast channel's updates).
    /// - Throws: ``ActivityAuthorizationError``: `unentitled` without `NSSupportsLiveActivities`, `attributesTooLarge`
    ///   past 4 KB, `targetMaximumExceeded` past the app's limit, `unsupported` without a device daemon.
    public static func request(
        attributes: Attributes, content: ActivityContent<Attributes.ContentState>, pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        let encoder = JSONEncoder()
        let request = ActivityRequestRecord(
            attributesType: typeName, attributes: try encoder.encode(attributes), state: try encoder.encode(content.state),
            staleDate: content.staleDate, relevanceScore: content.relevanceScore, wantsToken: pushType == .token,
            channelID: pushType?.channelID)
        guard let activity = Activity(record: try ActivityRegistry.shared.request(request)) else {
            throw ActivityAuthorizationError.persistenceFailure
        }
        return activity
    }

    /// Shows new content; with `alertConfiguration`, the person is alerted.
    public func update(_ content: ActivityContent<Attributes.ContentState>, alertConfiguration: AlertConfiguration? = nil) async {
        guard let state = try? JSONEncoder().encode(content.state) else { return }
        await ActivityRegistry.shared.change(
            ActivityChangeRecord(
                id: id, state: state, staleDate: content.staleDate, relevanceScore: content.relevanceScore,
                alertTitle: alertConfiguration?.title, alertBody: alertConfiguration?.body))
    }

    /// Ends it, with final content when given; it stays shown as the policy says.
    public func end(_ content: ActivityContent<Attributes.ContentState>?, dismissalPolicy: ActivityUIDismissalPolicy = .default) async {
        let state = content.flatMap { try? JSONEncoder().encode($0.state) }
        var change = ActivityChangeRecord(
            id: id, state: state, staleDate: content?.staleDate, relevanceScore: content?.relevanceScore, ends: true)
        switch dismissalPolicy.policy {
        case .standard: break
        case .immediate: change.dismissImmediately = true
        case .after(let date): change.dismissalDate = date
        }
        await ActivityRegistry.shared.change(change)
    }

    // MARK: Records

    static func content(of record: ActivityRecord) -> ActivityContent<ContentState>? {
        guard let state = try? JSONDecoder().decode(ContentState.self, from: record.state) else { return nil }
        return ActivityContent(state: state, staleDate: record.staleDate, relevanceScore: record.relevanceScore ?? 0)
    }

    static func state(of record: ActivityRecord) -> ActivityState {
        switch record.phase {
        case "ended": .ended
        case "dismissed": .dismissed
        default: record.isStale ? .stale : .active
        }
    }
}

extension Data {
    /// The bytes of a hex token.
    init?(hex: String) {
        guard hex.utf8.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(bytes)
    }
}
