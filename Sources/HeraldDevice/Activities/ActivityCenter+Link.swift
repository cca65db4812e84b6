import Foundation
import GRDB
import HeraldWire

/// What the gateway link must hear for the activities, and what its answers change.
extension ActivityCenter {
    /// What the gateway must hear from this device for its activities: the push-to-start token of every app in
    /// `liveActivityApps`, a token for each activity that wants one and has none, a subscription for each channel an
    /// activity takes, and the retirement of what dismissed activities no longer need. Asking twice is harmless: the
    /// gateway answers a registration or subscription it has with the same token or `subscribed`.
    func linkRequests(liveActivityApps: [String]) throws -> [DeviceLinkMessage] {
        try store.read { db in
            var requests: [DeviceLinkMessage] = liveActivityApps.map { .register(topic: $0, kind: .pushToStart) }
            let activities = try ActivityStore.activities(db)
            var wanted: [String: String] = [:]
            for activity in activities {
                if activity.phase != .dismissed {
                    if activity.wantsToken { requests.append(.register(topic: activity.bundleID, kind: .activity, activityID: activity.id)) }
                    if let channel = activity.channelID { wanted[channel] = activity.bundleID }
                } else if activity.pushToken != nil, !activity.tokenRetired {
                    requests.append(.unregister(topic: activity.bundleID, kind: .activity, activityID: activity.id))
                }
            }
            let subscribed = try ActivityStore.subscribedChannels(db)
            for (channel, bundleID) in wanted.sorted(by: { $0.key < $1.key }) {
                requests.append(.subscribe(topic: bundleID, channelID: channel))
            }
            for (channel, bundleID) in subscribed.sorted(by: { $0.key < $1.key }) where wanted[channel] == nil {
                requests.append(.unsubscribe(topic: bundleID, channelID: channel))
            }
            return requests
        }
    }

    /// Records the gateway's answer about a Live Activity token or channel; returns the activity whose token changed.
    @discardableResult
    func linkAnswer(_ message: DeviceLinkMessage) throws -> LiveActivity? {
        try store.write { db in
            switch message {
            case .registered(let topic, let token, .pushToStart, _, _):
                try ActivityStore.setPushToStartToken(token, of: topic, db)
            case .unregistered(let topic, let token, .pushToStart, _):
                if try ActivityStore.pushToStartToken(of: topic, db) == token { try ActivityStore.setPushToStartToken(nil, of: topic, db) }
            case .registered(_, let token, .activity, let id?, _):
                guard var activity = try ActivityStore.activities(db, where: "id = ?", [id]).first else { return nil }
                activity.pushToken = token
                try ActivityStore.save(activity, db)
                return activity
            case .unregistered(_, let token, .activity, let id?):
                guard var activity = try ActivityStore.activities(db, where: "id = ? AND push_token = ?", [id, token]).first else { return nil }
                activity.tokenRetired = true
                try ActivityStore.save(activity, db)
            case .subscribed(let topic, let channel):
                try ActivityStore.setSubscribed(channel, bundleID: topic, db)
            case .unsubscribed(_, let channel):
                try ActivityStore.setSubscribed(channel, bundleID: nil, db)
            default:
                break
            }
            return nil
        }
    }
}
