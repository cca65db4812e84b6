import Foundation
import HeraldSpawn
import Synchronization
package import UserNotifications

extension DeviceDaemon {
    // MARK: Responses

    /// The person opened, acted on, replied to or dismissed a delivered notification: it leaves the list, and
    /// the app's delegate hears of it (launching the app when it does not run).
    package func respond(_ request: RespondRequest) async throws(UNError) -> DaemonResult {
        let (bundleID, notification) = try await findDelivered(request)
        if let choice = ProvisionalChoice(rawValue: request.action) {
            return try await choose(choice, for: bundleID)
        }
        let content = notification.request.content
        let category = try await engine.categories(of: bundleID).first { $0.identifier == content.categoryIdentifier }
        let actionIdentifier: String
        var foreground = true
        switch request.action {
        case "open", "default", UNNotificationDefaultActionIdentifier:
            actionIdentifier = UNNotificationDefaultActionIdentifier
        case "dismiss", UNNotificationDismissActionIdentifier:
            actionIdentifier = UNNotificationDismissActionIdentifier
            foreground = false
        default:
            guard let action = category?.actions.first(where: { $0.identifier == request.action }) else {
                let offered = (category?.actions.map(\.identifier) ?? []) + ["open", "dismiss"]
                throw UNError(
                    .notificationsNotAllowed,
                    """
                    notification \(request.identifier) of \(bundleID) has no action "\(request.action)"; \
                    it offers: \(offered.joined(separator: ", "))
                    """)
            }
            actionIdentifier = action.identifier
            foreground = UNNotificationActionOptions(rawValue: action.options).contains(.foreground)
            if action.textInput != nil, request.text == nil {
                throw UNError(.notificationsNotAllowed, "action \(action.identifier) is a text reply: add --text \"…\"")
            }
        }
        let takesText = category?.actions.first { $0.identifier == actionIdentifier }?.textInput != nil
        if request.text != nil, !takesText {
            throw UNError(.notificationsNotAllowed, "action \(request.action) takes no text; only text-input actions do")
        }
        try await engine.removeAnswered(notification, of: bundleID)
        let customDismiss = UNNotificationCategoryOptions(rawValue: category?.options ?? 0).contains(.customDismissAction)
        if actionIdentifier == UNNotificationDismissActionIdentifier, !customDismiss {
            await engine.releaseAttachments(of: notification, app: bundleID)
            return .responded(
                bundleID: bundleID, actionIdentifier: actionIdentifier,
                delivery: "dismissed; the app is not told (its category has no customDismissAction)")
        }
        let response = ResponseRecord(notification: notification, actionIdentifier: actionIdentifier, userText: request.text)
        let delivery = await hand(.response(response), to: bundleID, reason: foreground ? "response" : "background-response")
        return .responded(bundleID: bundleID, actionIdentifier: actionIdentifier, delivery: delivery)
    }

    /// The app's own notification settings, asked for from Settings or from one of its notifications: the app hears
    /// `userNotificationCenter(_:openSettingsFor:)` (launched if it does not run). Only for an app that said it has
    /// such a screen (`providesAppNotificationSettings`), as iOS shows the button only then.
    package func openAppSettings(of bundleID: String, from identifier: String?) async throws(UNError) -> DaemonResult {
        guard try await engine.settings(of: bundleID).providesAppNotificationSettings else {
            throw UNError(
                .notificationsNotAllowed,
                "\(bundleID) has no notification settings of its own: it asks for them with requestAuthorization(options: [.providesAppNotificationSettings])"
            )
        }
        var notification: NotificationRecord?
        if let identifier {
            notification = try await findDelivered(RespondRequest(bundleID: bundleID, identifier: identifier, action: "open", text: nil)).1
        }
        let delivery = await hand(.openSettings(notification), to: bundleID, reason: "settings")
        return .responded(bundleID: bundleID, actionIdentifier: "openSettings", delivery: delivery)
    }

    /// Keep or Turn Off on a quietly delivered notification: the app's settings change (only while it is provisional).
    private func choose(_ choice: ProvisionalChoice, for bundleID: String) async throws(UNError) -> DaemonResult {
        let settings = try await engine.settings(of: bundleID)
        guard settings.authorizationStatus == .provisional else {
            throw UNError(.notificationsNotAllowed, "\(bundleID) is not delivered quietly any more: change it with herald device settings")
        }
        let entitlements = AppEntitlements(bundleDirectory: (try? apps.app(bundleID: bundleID))??.bundleDirectory)
        try await engine.changeSettings(of: bundleID, to: choice.settings(entitlements: entitlements))
        return .responded(bundleID: bundleID, actionIdentifier: choice.rawValue, delivery: "settings changed: \(choice.title)")
    }

    /// A delivered notification with its category's actions and its app's content extension, for `herald device show`.
    package func expand(bundleID: String?, identifier: String) async throws(UNError) -> DaemonResult {
        let (app, notification) = try await findDelivered(RespondRequest(bundleID: bundleID, identifier: identifier, action: "open", text: nil))
        let category = notification.request.content.categoryIdentifier
        let actions = try await engine.categories(of: app).first { $0.identifier == category }?.actions ?? []
        let contentExtension = (try? apps.app(bundleID: app))??.contentExtension(forCategory: category)
        return .expanded(
            ExpandedNotification(
                bundleID: app, notification: notification, actions: actions, contentExtension: contentExtension?.executable.path,
                defaultContentHidden: contentExtension?.defaultContentHidden ?? false,
                overridesDefaultTitle: contentExtension?.overridesDefaultTitle ?? false,
                initialContentSizeRatio: contentExtension?.initialContentSizeRatio,
                userInteractionEnabled: contentExtension?.userInteractionEnabled ?? false))
    }

    private func findDelivered(_ request: RespondRequest) async throws(UNError) -> (String, NotificationRecord) {
        var matches: [(String, NotificationRecord)] = []
        let candidates: [String]
        if let bundleID = request.bundleID {
            candidates = [bundleID]
        } else {
            do {
                candidates = try await store.perform { try $0.apps().map(\.bundleID) }
            } catch {
                throw UNError(storeFailure: NotificationStoreError(error))
            }
        }
        for bundleID in candidates {
            if let found = try await engine.delivered(of: bundleID).first(where: { $0.request.identifier == request.identifier }) {
                matches.append((bundleID, found))
            }
        }
        guard let match = matches.first else {
            let scope = request.bundleID.map { " of \($0)" } ?? ""
            throw UNError(.notificationsNotAllowed, "no delivered notification\(scope) has the identifier \(request.identifier)")
        }
        guard matches.count == 1 else {
            throw UNError(
                .notificationsNotAllowed,
                """
                \(request.identifier) names notifications of several apps (\(matches.map(\.0).joined(separator: ", "))): add --app BUNDLE_ID
                """)
        }
        return match
    }

    // MARK: Handing events to apps

    /// Queues `event` for the app and hands it over: at once when a running session handles it, else when the app
    /// next does — launching an installed app that does not run. Returns what happened, for people.
    @discardableResult
    func hand(_ event: AppEventRecord, to bundleID: String, reason: String) async -> String {
        guard let app = try? apps.app(bundleID: bundleID) else {
            await releaseAttachments(carriedBy: event, app: bundleID)
            return "not handed over: \(bundleID) is not an installed app (`herald apps install`)"
        }
        let id: Int64
        do {
            id = try await store.perform { try $0.queue(event, for: bundleID) }
        } catch {
            report(.problem("cannot queue an event for \(bundleID): \(error)"))
            await releaseAttachments(carriedBy: event, app: bundleID)
            return "lost: the notification store failed (\(error))"
        }
        await deliverQueuedEvents(of: bundleID)
        let stillQueued = ((try? await store.perform { try $0.queuedEvents(for: bundleID) }) ?? []).contains { $0.id == id }
        guard stillQueued else { return "delivered to the running app" }
        guard sessions(of: bundleID).isEmpty else { return "queued until the app sets its delegate or handler" }
        do {
            if let pid = try launcher.launch(app, reason: reason)?.processIdentifier {
                report(.launched(bundleID: bundleID, pid: pid, reason: reason))
                return "launched the app (pid \(pid)); delivered once it sets its delegate"
            }
            return "queued; the app was launched and is starting"
        } catch {
            report(.problem("cannot launch \(bundleID) (\(app.executable.path)): \(error)"))
            return "queued; launching \(app.executable.path) failed: \(error)"
        }
    }

    /// Hands the app's queued events to a session that handles them, oldest first; each leaves the queue once
    /// the app's handler has run. One delivery per app at a time; a request meanwhile makes it look again.
    func deliverQueuedEvents(of bundleID: String) async {
        let first = eventDelivery.withLock { delivering in
            guard delivering[bundleID] == nil else {
                delivering[bundleID] = true
                return false
            }
            delivering[bundleID] = false
            return true
        }
        guard first else { return }
        var again = true
        while again {
            for queued in (try? await store.perform({ try $0.queuedEvents(for: bundleID) })) ?? [] {
                guard let session = sessions(of: bundleID).first(where: { $0.handles(queued.event) }) else { continue }
                let reply = await session.conversation.request(timeout: .seconds(60)) { .ask(id: $0, question: .event(queued.event)) }
                if case .answer? = reply {
                    _ = try? await store.perform { try $0.removeEvent(queued.id) }
                    await releaseAttachments(carriedBy: queued.event, app: bundleID)
                }
            }
            again = eventDelivery.withLock { delivering in
                let requested = delivering[bundleID] == true
                if requested { delivering[bundleID] = false } else { delivering[bundleID] = nil }
                return requested
            }
        }
    }

    /// A response carries its notification's attachments to the app: once the app has it (or never will), they go.
    private func releaseAttachments(carriedBy event: AppEventRecord, app bundleID: String) async {
        guard case .response(let response) = event else { return }
        await engine.releaseAttachments(of: response.notification, app: bundleID)
    }
}
