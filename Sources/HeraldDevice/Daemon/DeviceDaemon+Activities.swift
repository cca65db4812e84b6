import Foundation
import HeraldWire
import Synchronization
import UserNotificationsUI

extension DeviceDaemon {
    // MARK: Live Activities

    /// Applies a `liveactivity` push and tells the gateway what the change needs (a token for a new activity, a
    /// channel subscription, a token retired).
    func receiveActivityPush(_ notification: LinkNotification) async throws {
        let apnsID = APNsID.format(notification.apnsID)
        var switches = (enabled: false, frequent: false)
        if let app = try? apps.app(bundleID: notification.bundleID) { switches = try await liveActivitySwitches(of: app) }
        let budget = switches.frequent ? ActivityLimits.frequentPriorityBudget : ActivityLimits.priorityBudget
        switch try activities.receive(notification, now: Date(), allowsStart: switches.enabled, budget: budget) {
        case .dropped(let reason):
            report(.activityPushDropped(apnsID: apnsID, bundleID: notification.bundleID, reason: reason))
            // The gateway's delivery log says so too (on the notification, which the link acknowledges right after).
            if let sender = link.withLock({ $0.sender }) { try? await sender.send(.dropped(uniqueID: notification.uniqueID, reason: reason)) }
        case .changed(let changes):
            await settle(changes)
        }
    }

    /// Reports each change and sends the link requests they call for, when the link is up (else the next connection
    /// sends them: ``ActivityCenter/linkRequests(liveActivityApps:)``).
    func settle(_ changes: [ActivityChange]) async {
        var requests: [DeviceLinkMessage] = []
        for change in changes {
            let activity = change.activity
            tellWatchers(activity)
            if change.kind == .dismissed {
                report(.activity(change, view: nil))
                presentation.removeActivity(id: activity.id)
                if (try? activities.current().contains { $0.bundleID == activity.bundleID }) == false {
                    await activityViews.close(bundleID: activity.bundleID)
                }
            } else {
                let view = await presentActivity(change)
                report(.activity(change, view: view))
            }
            switch change.kind {
            case .started:
                if activity.wantsToken { requests.append(.register(topic: activity.bundleID, kind: .activity, activityID: activity.id)) }
                if let channel = activity.channelID { requests.append(.subscribe(topic: activity.bundleID, channelID: channel)) }
            case .dismissed:
                if activity.pushToken != nil, !activity.tokenRetired {
                    requests.append(.unregister(topic: activity.bundleID, kind: .activity, activityID: activity.id))
                }
                if let channel = activity.channelID, (try? activities.current().contains { $0.channelID == channel }) == false {
                    requests.append(.unsubscribe(topic: activity.bundleID, channelID: channel))
                }
            case .updated, .stale, .ended:
                break
            }
        }
        guard !requests.isEmpty, let sender = link.withLock({ $0.sender }) else { return }
        for request in requests {
            do {
                try await sender.send(request)
            } catch {
                return  // the link dropped: the next connection asks again
            }
        }
    }

    /// Shows the activity after `change` on every surface, drawn by the app's widget extension when it has one (else
    /// the default view); the view the extension drew.
    func presentActivity(_ change: ActivityChange) async -> ViewSnapshot? {
        let activity = change.activity
        let manifest = (try? apps.app(bundleID: activity.bundleID)) ?? nil
        var shown = ActivityPresentation(change, app: Presentation.App(manifest, bundleID: activity.bundleID))
        if let manifest, !manifest.widgetExtensions.isEmpty {
            let drawing = await activityViews.draw(
                activity.record(at: Date()), bundleID: activity.bundleID, extensions: manifest.widgetExtensions)
            drawing.problems.forEach { report(.problem($0)) }
            shown.view = drawing.view
        }
        presentation.showActivity(shown)
        return shown.view
    }

    /// The gateway's answer about a Live Activity token or channel.
    func linkAnswered(_ message: DeviceLinkMessage) throws {
        if case .error(let refusal) = message {
            report(.refused(reason: refusal.reason, message: refusal.message))
            return
        }
        if let activity = try activities.linkAnswer(message) { tellWatchers(activity) }
        if case .registered(let topic, let token, .pushToStart, _, _) = message { tellWatchers(pushToStartToken: token, of: topic) }
        report(.liveActivityToken(message))
    }

    /// Once a second: stale dates, the 8-hour limit and dismissals.
    func runActivityClock() async {
        while !Task.isCancelled {
            do {
                let changes = try activities.tick(now: Date())
                if !changes.isEmpty { await settle(changes) }
            } catch {
                report(.problem("cannot update the Live Activities: \(error)"))
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
