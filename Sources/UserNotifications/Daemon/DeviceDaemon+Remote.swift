import Foundation
import HeraldWire
import Synchronization

extension DeviceDaemon {
    // MARK: The gateway link

    /// Holds the link (reconnecting), registering the installed apps and the named topics on each connection.
    func runLink(_ gatewayLink: GatewayLink) async throws {
        let apps = self.apps
        let named = configuration.topics
        try await gatewayLink.run(topics: {
            var topics = named
            for app in (try? apps.all()) ?? [] where !topics.contains(app.bundleIdentifier) { topics.append(app.bundleIdentifier) }
            return topics
        }) { [self] event in
            try await linkEvent(event)
        } onDisconnect: { [self] reason in
            link.withLock { $0.sender = nil }
            report(.linkClosed(reason: reason))
        }
    }

    private func linkEvent(_ event: GatewayLinkEvent) async throws {
        switch event {
        case .connected(_, let sender):
            link.withLock { $0.sender = sender }
        case .registered(let topic, let token):
            let waiting = link.withLock { link in
                link.tokens[topic] = token
                return link.waiting.removeValue(forKey: topic) ?? []
            }
            for continuation in waiting { continuation.resume(returning: .success(token)) }
            report(.registered(topic: topic, deviceToken: token))
        case .unregistered(let topic, let token):
            link.withLock { _ = $0.tokens.removeValue(forKey: topic) }
            report(.unregistered(topic: topic, deviceToken: token))
        case .refused(let reason, let message):
            // A refused registration fails whoever waits for one.
            let waiting = link.withLock { link in
                defer { link.waiting = [:] }
                return link.waiting.values.flatMap { $0 }
            }
            let error = UNError(.notificationsNotAllowed, "the gateway refused: \(reason): \(message)")
            for continuation in waiting { continuation.resume(returning: .failure(error)) }
            report(.refused(reason: reason, message: message))
        case .notification(let notification):
            // Kept before the gateway hears of it: from here on a daemon restart loses nothing.
            let item = NotificationStore.InboxItem(
                apnsID: APNsID.format(notification.apnsID), bundleID: notification.bundleID,
                identifier: notification.requestIdentifier, payload: notification.payload,
                receivedAt: Date(timeIntervalSince1970: Double(notification.receivedAt) / 1000)
            )
            if try store.receive(item) { inboxSignal.yield() }
        }
    }

    /// The app's device token: known from the link's registrations, or asked for now.
    func registerForRemoteNotifications(_ bundleID: String) async throws(UNError) -> String {
        guard configuration.link != nil else {
            throw UNError(.notificationsNotAllowed, "this device daemon has no gateway: start it with `herald device --gateway https://HOST:5223`")
        }
        if let token = link.withLock({ $0.tokens[bundleID] }) { return token }
        guard let sender = link.withLock({ $0.sender }) else {
            throw UNError(.notificationsNotAllowed, "the device daemon is not connected to its gateway right now; try again shortly")
        }
        let timeout = configuration.registrationTimeout
        let result: Result<String, UNError> = await withCheckedContinuation { continuation in
            link.withLock { $0.waiting[bundleID, default: []].append(continuation) }
            Task {
                do {
                    try await sender.send(.register(topic: bundleID))
                    try await Task.sleep(for: timeout)
                } catch {}
                let late = link.withLock { link -> [CheckedContinuation<Result<String, UNError>, Never>] in
                    link.waiting.removeValue(forKey: bundleID) ?? []
                }
                for waiting in late {
                    waiting.resume(returning: .failure(UNError(.notificationsNotAllowed, "the gateway did not register \(bundleID) in time")))
                }
            }
        }
        return try result.get()
    }

    // MARK: The inbox

    /// Presents what was received, oldest first, and whatever a previous run left unpresented. Notifications
    /// that go through a service extension run beside the others.
    func processInbox() async {
        inboxSignal.yield()
        for await _ in inboxSignals {
            let items: [NotificationStore.InboxItem]
            do {
                items = try store.openInbox()
            } catch {
                report(.problem("cannot read the inbox: \(error)"))
                continue
            }
            for item in items where inboxInFlight.withLock({ $0.insert(item.apnsID).inserted }) {
                let payload: RemotePayload
                do {
                    payload = try RemotePayload(json: item.payload)
                } catch {
                    report(.problem("dropped \(item.apnsID) for \(item.bundleID): \(error)"))
                    try? store.closeInbox(item.apnsID)
                    continue
                }
                let app = try? apps.app(bundleID: item.bundleID)
                if payload.wantsServiceExtension, let service = app?.serviceExtension, let app {
                    Task {
                        await present(item, payload, app: app, service: service)
                        inboxInFlight.withLock { _ = $0.remove(item.apnsID) }
                    }
                } else {
                    await present(item, payload, app: app, service: nil)
                    inboxInFlight.withLock { _ = $0.remove(item.apnsID) }
                }
            }
        }
    }

    /// Presents one remote notification (a background push goes to the app instead).
    private func present(_ item: NotificationStore.InboxItem, _ payload: RemotePayload, app: AppManifest?, service: ExtensionManifest?) async {
        do throws(UNError) {
            if payload.isBackground {
                do {
                    try store.closeInbox(item.apnsID)
                } catch {
                    report(.problem("cannot close \(item.apnsID) in the inbox: \(error); it will be handed over again"))
                    return
                }
                report(.background(apnsID: item.apnsID, bundleID: item.bundleID, payload: item.payload))
                await hand(.remoteNotification(userInfo: payload.userInfo), to: item.bundleID, reason: "remote-notification")
                return
            }
            var request = payload.request(identifier: item.identifier, strings: app.map { LocalizedStrings(bundleDirectory: $0.bundleDirectory) })
            if let service, let app {
                let outcome = await runner.run(
                    executable: service.executable, request: request, environment: extensionEnvironment(app, service),
                    attachments: attachmentStore(of: app.bundleIdentifier, bundleDirectory: app.bundleDirectory, in: configuration.dataDirectory)
                )
                request = outcome.request
                report(.serviceExtension(apnsID: item.apnsID, bundleID: item.bundleID, outcome: outcome.summary))
            }
            let fired = LocalEngine.Fired(
                bundleID: item.bundleID, notification: NotificationRecord(date: Date(), request: request), lateness: 0, apnsID: item.apnsID
            )
            var options = await presentationOptions(for: fired)
            // A push with only a badge or sound updates the badge or plays; nothing is shown or listed.
            if !payload.alertIsPresent, request.content.attachments.isEmpty { options.formIntersection([.badge, .sound]) }
            try await engine.complete(fired, options: options)
        } catch {
            report(.problem("cannot present \(item.apnsID) for \(item.bundleID): \(error.message); it stays in the inbox"))
        }
    }

    private func extensionEnvironment(_ app: AppManifest, _ service: ExtensionManifest) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HERALD_BUNDLE_ID"] = service.bundleIdentifier
        environment["HERALD_APP_BUNDLE_ID"] = app.bundleIdentifier
        environment["HERALD_DATA_DIR"] = configuration.dataDirectory.path
        return environment
    }
}

extension ServiceExtensionOutcome {
    /// One line for the daemon's log: where the content came from and what was left out.
    var summary: String {
        var text: String
        switch source {
        case .extensionContent: text = "presented the extension's content"
        case .bestAttemptAfterExpiry: text = "presented the extension's best attempt after the time expired"
        case .original(let reason): text = "presented the original content: \(reason)"
        }
        if !droppedAttachments.isEmpty { text += "; dropped attachments: " + droppedAttachments.joined(separator: "; ") }
        return text
    }
}
