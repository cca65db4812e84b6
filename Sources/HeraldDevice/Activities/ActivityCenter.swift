import Foundation
import GRDB
package import HeraldWire
import UserNotifications

/// What happened to a Live Activity, for every surface that shows it and the app that owns it.
package struct ActivityChange: Sendable, Hashable {
    package enum Kind: String, Sendable {
        case started, updated, stale, ended, dismissed
    }

    package var kind: Kind
    package var activity: LiveActivity
    /// The push's `alert`, when it asked to alert the person.
    package var alert: JSONValue?
}

/// The device's Live Activities, in the role of iOS's system side of ActivityKit: pushes start, update and end them
/// (routed by the token or channel they came on), time makes them stale, ends them after 8 hours and dismisses them,
/// and the gateway link is told which tokens and channels the device needs.
///
/// Every method runs in one transaction of the activity store, so a push is applied whole or not at all before the
/// daemon acknowledges it.
package final class ActivityCenter: Sendable {
    let store: ActivityStore

    init(store: ActivityStore) {
        self.store = store
    }

    /// What a push did: changes, or why it was dropped (as iOS drops it, silently for the provider).
    package enum Outcome: Sendable, Hashable {
        case changed([ActivityChange])
        case dropped(String)
    }

    /// Applies a `liveactivity` push the gateway delivered; `allowsStart` is false when the app may not have Live
    /// Activities now (not declared in its Info.plist, or turned off by the person); `budget` is how many priority-10
    /// pushes an activity takes an hour (``ActivityLimits/priorityBudget``, or the frequent one).
    func receive(
        _ notification: LinkNotification, now: Date, allowsStart: Bool = true, budget: Int = ActivityLimits.priorityBudget
    ) throws -> Outcome {
        let charge = notification.priority == .immediate ? budget : nil
        let payload: ActivityPayload
        do {
            payload = try ActivityPayload(json: notification.payload)
        } catch {
            return .dropped(error.description)
        }
        return try store.write { db in
            if let channelID = notification.channelID {
                let targets = try ActivityStore.activities(
                    db, where: "channel_id = ? AND bundle_id = ? AND phase = 'active'", [channelID, notification.bundleID])
                guard !targets.isEmpty else { return .dropped("no active Live Activity of \(notification.bundleID) takes channel \(channelID)") }
                var changes: [ActivityChange] = []
                var reasons: [String] = []
                for target in targets {
                    switch try apply(payload, to: target, now: now, budget: charge, db) {
                    case .changed(let applied): changes += applied
                    case .dropped(let reason): reasons.append(reason)
                    }
                }
                return changes.isEmpty ? .dropped(reasons.first ?? "no activity on channel \(channelID) took it") : .changed(changes)
            }
            if try ActivityStore.pushToStartToken(of: notification.bundleID, db) == notification.deviceToken {
                guard allowsStart else { return .dropped("Live Activities are turned off for \(notification.bundleID)") }
                return try start(payload, bundleID: notification.bundleID, now: now, db)
            }
            if let target = try ActivityStore.activities(db, where: "push_token = ?", [notification.deviceToken]).first {
                guard payload.event != .start else { return .dropped("a start goes to the push-to-start token, not an activity's") }
                return try apply(payload, to: target, now: now, budget: charge, db)
            }
            return .dropped("the token is not a Live Activity's: iOS drops a liveactivity push to the app's own token")
        }
    }

    private func start(_ payload: ActivityPayload, bundleID: String, now: Date, _ db: Database) throws -> Outcome {
        guard payload.event == .start else { return .dropped("a push-to-start token takes start events only") }
        guard let type = payload.attributesType, let attributes = payload.attributes, let state = payload.contentState else {
            return .dropped("a start needs attributes-type, attributes and content-state")
        }
        guard attributes.count + state.count <= ActivityLimits.dataSize else {
            return .dropped("attributes and content-state are \(attributes.count + state.count) bytes; ActivityKit takes \(ActivityLimits.dataSize)")
        }
        let live = try ActivityStore.activities(db, where: "bundle_id = ? AND phase = 'active'", [bundleID])
        guard live.count < ActivityLimits.perApp else {
            return .dropped("\(bundleID) has \(live.count) active Live Activities, the most an app may have")
        }
        let activity = LiveActivity(
            id: UUID().uuidString, bundleID: bundleID, attributesType: type, attributes: attributes, state: state,
            staleDate: payload.staleDate, relevanceScore: payload.relevanceScore, origin: .push, wantsToken: payload.wantsToken,
            channelID: payload.channelID, createdAt: now, lastTimestamp: payload.timestamp)
        try ActivityStore.save(activity, db)
        return .changed([ActivityChange(kind: .started, activity: activity, alert: payload.alert)])
    }

    /// An update or end to one activity; older than what it shows, to one already ended, or a priority-10 push past
    /// the activity's hourly `budget` (nil: priority 5, no budget), it is dropped.
    private func apply(_ payload: ActivityPayload, to target: LiveActivity, now: Date, budget: Int?, _ db: Database) throws -> Outcome {
        guard target.phase == .active else { return .dropped("activity \(target.id) has ended") }
        guard payload.timestamp > target.lastTimestamp else {
            return .dropped("timestamp \(payload.timestamp) is not after the activity's \(target.lastTimestamp)")
        }
        var activity = target
        if let budget {
            if activity.budgetWindowStart.map({ now.timeIntervalSince($0) >= 3600 }) ?? true {
                activity.budgetWindowStart = now
                activity.budgetUsed = 0
            }
            guard activity.budgetUsed < budget else {
                return .dropped(
                    "over the activity's priority-10 budget (\(budget) an hour, used since \(Int(activity.budgetWindowStart!.timeIntervalSince1970))): "
                        + "send updates that can wait with apns-priority 5")
            }
            activity.budgetUsed += 1
        }
        activity.lastTimestamp = payload.timestamp
        if let state = payload.contentState { activity.state = state }
        if payload.staleDate != nil { activity.staleDate = payload.staleDate }
        if payload.relevanceScore != nil { activity.relevanceScore = payload.relevanceScore }
        activity.staleReported = activity.staleReported && activity.isStale(at: now)
        guard payload.event == .end else {
            try ActivityStore.save(activity, db)
            return .changed([ActivityChange(kind: .updated, activity: activity, alert: payload.alert)])
        }
        activity.phase = .ended
        activity.endedAt = now
        activity.dismissAt = min(payload.dismissalDate ?? .distantFuture, now.addingTimeInterval(ActivityLimits.shownAfterEnd))
        var changes = [ActivityChange(kind: .ended, activity: activity, alert: payload.alert)]
        if let dismissAt = activity.dismissAt, dismissAt <= now {
            activity.phase = .dismissed
            changes.append(ActivityChange(kind: .dismissed, activity: activity))
        }
        try ActivityStore.save(activity, db)
        return .changed(changes)
    }

    /// What time did by `now`: stale dates passed, activities ended after 8 hours, ended ones dismissed (and forgotten
    /// once their token is retired).
    func tick(now: Date) throws -> [ActivityChange] {
        try store.write { db in
            var changes: [ActivityChange] = []
            for var activity in try ActivityStore.activities(db, where: "phase != 'dismissed'") {
                if activity.phase == .active, activity.createdAt.addingTimeInterval(ActivityLimits.activeDuration) <= now {
                    activity.phase = .ended
                    activity.endedAt = activity.createdAt.addingTimeInterval(ActivityLimits.activeDuration)
                    activity.dismissAt = activity.endedAt?.addingTimeInterval(ActivityLimits.shownAfterEnd)
                    changes.append(ActivityChange(kind: .ended, activity: activity))
                } else if activity.isStale(at: now), !activity.staleReported {
                    activity.staleReported = true
                    changes.append(ActivityChange(kind: .stale, activity: activity))
                }
                if activity.phase == .ended, let dismissAt = activity.dismissAt, dismissAt <= now {
                    activity.phase = .dismissed
                    changes.append(ActivityChange(kind: .dismissed, activity: activity))
                }
                if changes.last?.activity.id == activity.id { try ActivityStore.save(activity, db) }
            }
            // A dismissed activity is kept only while the gateway still owes its token's retirement.
            try db.execute(sql: "DELETE FROM activity WHERE phase = 'dismissed' AND (push_token IS NULL OR token_retired)")
            return changes
        }
    }

    /// The push-to-start token of an app, once the gateway gave it.
    func pushToStartToken(of bundleID: String) throws -> String? {
        try store.read { db in try ActivityStore.pushToStartToken(of: bundleID, db) }
    }

    /// Every activity not yet dismissed, oldest first.
    func current() throws -> [LiveActivity] {
        try store.read { db in try ActivityStore.activities(db, where: "phase != 'dismissed'") }
    }
}
