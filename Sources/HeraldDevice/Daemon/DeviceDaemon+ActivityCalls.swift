import Foundation
import Synchronization
import UserNotifications

extension DaemonCall {
    var isActivityCall: Bool {
        switch self {
        case .activities, .requestActivity, .changeActivity: true
        default: false
        }
    }
}

extension DeviceDaemon {
    /// Answers an app's ActivityKit call, as that app; a refusal names ActivityKit's `ActivityAuthorizationError` case.
    func answerActivityCall(_ call: DaemonCall, id: Int, from session: AppSession) async -> DaemonMessage {
        guard case .app(let app) = session.role else {
            let message = if case .refused(let reason) = session.role { reason } else { "only apps have Live Activities" }
            return .failure(id: id, code: UNError.Code.notificationsNotAllowed.rawValue, message: message, activity: "unsupportedTarget")
        }
        do {
            return .result(id: id, result: try await performActivityCall(call, app: app, session: session))
        } catch let refusal as ActivityRefusal {
            return .failure(id: id, code: UNError.Code.notificationsNotAllowed.rawValue, message: refusal.message, activity: refusal.reason)
        } catch {
            return .failure(
                id: id, code: UNError.Code.notificationsNotAllowed.rawValue, message: "the Live Activities cannot be read or written: \(error)",
                activity: "persistenceFailure")
        }
    }

    private func performActivityCall(_ call: DaemonCall, app: AppManifest, session: AppSession) async throws -> DaemonResult {
        let now = Date()
        switch call {
        case .activities(let type, let watch):
            if watch { session.watchActivities(ofType: type) }
            let records = try activities.current().filter { $0.bundleID == app.bundleIdentifier && $0.attributesType == type }
            let (enabled, frequent) = try await liveActivitySwitches(of: app)
            return .activities(
                ActivitySnapshot(
                    activities: records.map { $0.record(at: now) }, pushToStartToken: try activities.pushToStartToken(of: app.bundleIdentifier),
                    enabled: enabled, frequentPushesEnabled: frequent))
        case .requestActivity(let request):
            guard app.supportsLiveActivities else {
                throw ActivityRefusal("unentitled", "\(app.bundleIdentifier) does not declare NSSupportsLiveActivities in its Info.plist")
            }
            guard try await liveActivitySwitches(of: app).enabled else {
                throw ActivityRefusal(
                    "denied", "Live Activities are turned off for \(app.bundleIdentifier) (herald device settings --live-activities on)")
            }
            let change = try activities.request(request, bundleID: app.bundleIdentifier, now: now)
            Task { await settle([change]) }
            return .activity(change.activity.record(at: now))
        case .changeActivity(let record):
            let changes = try activities.change(record, bundleID: app.bundleIdentifier, now: now)
            Task { await settle(changes) }
            return .done
        default:
            preconditionFailure("not an activity call")
        }
    }

    /// Whether the app may have Live Activities now, and frequent updates: its Info.plist and the person's settings.
    func liveActivitySwitches(of app: AppManifest) async throws -> (enabled: Bool, frequent: Bool) {
        let bundleID = app.bundleIdentifier
        let settings = try await store.perform { try $0.settings(of: bundleID) } ?? SettingsRecord()
        let enabled = app.supportsLiveActivities && settings.liveActivities
        return (enabled, enabled && app.supportsFrequentUpdates && settings.frequentUpdates)
    }

    /// Asks every connection of the activity's app that watches its type about the change.
    func tellWatchers(_ activity: LiveActivity) {
        let record = activity.record(at: Date())
        for session in sessions.withLock({ Array($0.values) })
        where session.bundleID == activity.bundleID && session.watchesActivities(ofType: activity.attributesType) {
            Task { _ = await session.conversation.request(timeout: .seconds(10)) { .ask(id: $0, question: .activity(record)) } }
        }
    }

    /// Tells the app's watching connections its new push-to-start token.
    func tellWatchers(pushToStartToken token: String, of bundleID: String) {
        for session in sessions.withLock({ Array($0.values) }) where session.bundleID == bundleID && session.watchesActivities {
            Task { _ = await session.conversation.request(timeout: .seconds(10)) { .ask(id: $0, question: .pushToStartToken(token)) } }
        }
    }
}

/// A refused ActivityKit call: the `ActivityAuthorizationError` case's name and a message.
struct ActivityRefusal: Error {
    var reason: String
    var message: String

    init(_ reason: String, _ message: String) {
        self.reason = reason
        self.message = message
    }
}

extension LiveActivity {
    func record(at now: Date) -> ActivityRecord {
        ActivityRecord(
            id: id, attributesType: attributesType, attributes: attributes, state: state, staleDate: staleDate, relevanceScore: relevanceScore,
            phase: phase.rawValue, isStale: isStale(at: now), pushToken: pushToken, createdAt: createdAt)
    }
}
