import Foundation
import GRDB
import HeraldWire
import UserNotifications

/// What an app asks of its activities over the daemon socket (ActivityKit's `request`, `update`, `end`).
extension ActivityCenter {
    /// `Activity.request` by the app: the new activity, or ActivityKit's refusal.
    func request(_ request: ActivityRequestRecord, bundleID: String, now: Date) throws -> ActivityChange {
        guard request.attributes.count + request.state.count <= ActivityLimits.dataSize else {
            throw ActivityRefusal(
                "attributesTooLarge",
                "attributes and state are \(request.attributes.count + request.state.count) bytes; the most is \(ActivityLimits.dataSize)")
        }
        return try store.write { db in
            let live = try ActivityStore.activities(db, where: "bundle_id = ? AND phase = 'active'", [bundleID])
            guard live.count < ActivityLimits.perApp else {
                throw ActivityRefusal("targetMaximumExceeded", "\(bundleID) has \(live.count) active Live Activities, the most an app may have")
            }
            let activity = LiveActivity(
                id: UUID().uuidString, bundleID: bundleID, attributesType: request.attributesType, attributes: request.attributes,
                state: request.state, staleDate: request.staleDate, relevanceScore: request.relevanceScore, origin: .app,
                wantsToken: request.wantsToken, channelID: request.channelID, createdAt: now)
            try ActivityStore.save(activity, db)
            return ActivityChange(kind: .started, activity: activity)
        }
    }

    /// `update` or `end` by the app, on one of its own activities.
    func change(_ change: ActivityChangeRecord, bundleID: String, now: Date) throws -> [ActivityChange] {
        try store.write { db in
            guard var activity = try ActivityStore.activities(db, where: "id = ? AND bundle_id = ?", [change.id, bundleID]).first else {
                throw ActivityRefusal("malformedActivityIdentifier", "\(bundleID) has no Live Activity \(change.id)")
            }
            guard activity.phase == .active || (change.ends && activity.phase == .ended) else { return [] }
            if let state = change.state { activity.state = state }
            activity.staleDate = change.staleDate
            if let score = change.relevanceScore { activity.relevanceScore = score }
            activity.staleReported = activity.staleReported && activity.isStale(at: now)
            let alert: JSONValue? = change.alertTitle.map { title in
                .object(["title": .string(title), "body": .string(change.alertBody ?? "")])
            }
            guard change.ends else {
                try ActivityStore.save(activity, db)
                return [ActivityChange(kind: .updated, activity: activity, alert: alert)]
            }
            activity.phase = .ended
            activity.endedAt = activity.endedAt ?? now
            let latest = now.addingTimeInterval(ActivityLimits.shownAfterEnd)
            activity.dismissAt = change.dismissImmediately ? now : min(change.dismissalDate ?? latest, latest)
            var changes = [ActivityChange(kind: .ended, activity: activity, alert: alert)]
            if let dismissAt = activity.dismissAt, dismissAt <= now {
                activity.phase = .dismissed
                changes.append(ActivityChange(kind: .dismissed, activity: activity))
            }
            try ActivityStore.save(activity, db)
            return changes
        }
    }
}
