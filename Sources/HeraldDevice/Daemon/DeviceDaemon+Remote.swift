import Foundation
import HeraldWire
import Synchronization
import UserNotifications

extension DeviceDaemon {
    // MARK: The gateway link

    /// Holds the link (reconnecting), registering the installed apps and the named topics on each connection. A
    /// reason the link closed is reported at most once a minute while it repeats (a gateway certificate the device
    /// refuses, a gateway that is down): the daemon keeps trying meanwhile.
    func runLink(_ gatewayLink: GatewayLink) async throws {
        let apps = self.apps
        let named = configuration.topics
        let lastReported = Mutex<(reason: String, at: ContinuousClock.Instant)?>(nil)
        let activities = self.activities
        try await gatewayLink.run(requests: { [self] in
            let installed = (try? apps.all()) ?? []
            var topics = named
            for app in installed where !topics.contains(app.bundleIdentifier) { topics.append(app.bundleIdentifier) }
            let liveActivityApps = installed.filter(\.supportsLiveActivities).map(\.bundleIdentifier)
            do {
                return topics.map { .register(topic: $0) } + (try activities.linkRequests(liveActivityApps: liveActivityApps))
                    + webPushLinkRequests()
            } catch {
                report(.problem("cannot read the Live Activities: \(error)"))
                return topics.map { .register(topic: $0) } + webPushLinkRequests()
            }
        }) { [self] event in
            try await linkEvent(event)
        } onDisconnect: { [self] reason in
            link.withLock { $0.sender = nil }
            let now = ContinuousClock.now
            let repeated = lastReported.withLock { last in
                if let last, last.reason == reason, now - last.at < .seconds(60) { return true }
                last = (reason, now)
                return false
            }
            if !repeated { report(.linkClosed(reason: reason)) }
        }
    }

    private func linkEvent(_ event: GatewayLinkEvent) async throws {
        switch event {
        case .connected(_, let sender):
            link.withLock { $0.sender = sender }
        case .registered(let topic, let token):
            link.withLock { $0.tokens[topic] = token }
            registrations.finish(topic, with: .success(token))
            report(.registered(topic: topic, deviceToken: token))
        case .unregistered(let topic, let token):
            // The answer to the app's own unregistration, or the gateway's word that the token was retired elsewhere
            // (the console, `herald tokens retire`): an older token of the app leaves the current one as it is.
            link.withLock { if $0.tokens[topic] == token { $0.tokens[topic] = nil } }
            report(.unregistered(topic: topic, deviceToken: token))
        case .refused(let reason, let message, let topic):
            registrations.refuse(topic: topic, with: UNError(.notificationsNotAllowed, "the gateway refused: \(reason): \(message)"))
            report(.refused(reason: reason, message: message))
        case .liveActivity(let message) where message.isAboutWebPush:
            await webPushLinkAnswer(message)
        case .liveActivity(let message):
            try linkAnswered(message)
        case .notification(let notification) where notification.pushType == .webPush:
            // Acknowledged once the app's connector took it (else this throws GatewayLinkUndelivered).
            try await deliverWebPush(notification)
        case .notification(let notification) where notification.pushType == .liveActivity:
            // Applied before the gateway hears of it: from here on a daemon restart loses nothing.
            try await receiveActivityPush(notification)
        case .notification(let notification):
            // Kept before the gateway hears of it: from here on a daemon restart loses nothing.
            let item = NotificationStore.InboxItem(
                apnsID: APNsID.format(notification.apnsID), bundleID: notification.bundleID,
                identifier: notification.requestIdentifier, payload: notification.payload,
                receivedAt: Date(timeIntervalSince1970: Double(notification.receivedAt) / 1000)
            )
            if try await store.perform({ try $0.receive(item) }) { inboxSignal.yield() }
        }
    }

    /// The app's device token: known from the link's registrations, or asked for now.
    ///
    /// Each call waits on its own (``RegistrationWaiters``), at most `registrationTimeout`.
    func registerForRemoteNotifications(_ bundleID: String) async throws(UNError) -> String {
        guard configuration.link != nil else {
            throw UNError(.notificationsNotAllowed, "this device daemon has no gateway: start it with `herald device --gateway https://HOST:5223`")
        }
        if let token = link.withLock({ $0.tokens[bundleID] }) { return token }
        guard let sender = link.withLock({ $0.sender }) else {
            throw UNError(.notificationsNotAllowed, "the device daemon is not connected to its gateway right now; try again shortly")
        }
        return try await registrations.wait(for: bundleID, timeout: configuration.registrationTimeout) {
            try await sender.send(.register(topic: bundleID))
        }.get()
    }

    // MARK: The inbox

    /// Presents what was received, oldest first, and whatever a previous run left unpresented. Notifications
    /// that go through a service extension run beside the others.
    func processInbox() async {
        inboxSignal.yield()
        for await _ in inboxSignals {
            let items: [NotificationStore.InboxItem]
            do {
                items = try await store.perform { try $0.openInbox() }
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
                    _ = try? await store.perform { try $0.closeInbox(item.apnsID) }
                    continue
                }
                let app = try? apps.app(bundleID: item.bundleID)
                if payload.wantsServiceExtension, let service = app?.serviceExtension, let app {
                    Task {
                        presented(item, failure: await present(item, payload, app: app, service: service))
                    }
                } else {
                    presented(item, failure: await present(item, payload, app: app, service: nil))
                }
            }
        }
    }

    /// Ends `item`'s turn; one that could not be presented (its store busy or failing, say) stays in the inbox
    /// and is tried again after a back-off of 1 s doubling to 5 minutes, as long as the daemon runs.
    private func presented(_ item: NotificationStore.InboxItem, failure: UNError?) {
        inboxInFlight.withLock { _ = $0.remove(item.apnsID) }
        guard let failure else {
            presentationFailures.withLock { $0[item.apnsID] = nil }
            return
        }
        let attempt = presentationFailures.withLock { failures in
            failures[item.apnsID, default: 0] += 1
            return failures[item.apnsID, default: 1]
        }
        let wait = Backoff.wait(attempt: attempt, initial: .seconds(1), maximum: .seconds(300))
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        report(
            .problem(
                "cannot present \(item.apnsID) for \(item.bundleID): \(failure.message); it stays in the inbox, trying again in \(String(format: "%.1f", seconds)) s"
            ))
        let signal = inboxSignal
        Task {
            try? await Task.sleep(for: wait)
            signal.yield()
        }
    }

    /// Presents one remote notification (a background push goes to the app instead).
    ///
    /// - Returns: Why it could not be presented; it then stays in the inbox.
    private func present(
        _ item: NotificationStore.InboxItem, _ payload: RemotePayload, app: AppManifest?, service: ExtensionManifest?
    ) async -> UNError? {
        var outcome: ServiceExtensionOutcome?
        do throws(UNError) {
            if payload.isBackground {
                do {
                    try await store.perform { try $0.closeInbox(item.apnsID) }
                } catch {
                    return UNError(.notificationsNotAllowed, "cannot close it in the inbox before handing it over: \(error)")
                }
                report(.background(apnsID: item.apnsID, bundleID: item.bundleID, payload: item.payload))
                await hand(.remoteNotification(userInfo: payload.userInfo), to: item.bundleID, reason: "remote-notification")
                return nil
            }
            var request = payload.request(identifier: item.identifier, strings: app.map { LocalizedStrings(bundleDirectory: $0.bundleDirectory) })
            if let service, let app {
                let ran = await runner.run(
                    executable: service.executable, request: request, environment: extensionEnvironment(app, service),
                    attachments: attachmentStore(of: app.bundleIdentifier, bundleDirectory: app.bundleDirectory, in: configuration.dataDirectory)
                )
                outcome = ran
                request = ran.request
                report(.serviceExtension(apnsID: item.apnsID, bundleID: item.bundleID, outcome: ran.summary))
            }
            let fired = LocalEngine.Fired(
                bundleID: item.bundleID, notification: NotificationRecord(date: Date(), request: request), lateness: 0, apnsID: item.apnsID
            )
            var options = await presentationOptions(for: fired)
            // A push with only a badge or sound updates the badge or plays; nothing is shown or listed.
            if !payload.alertIsPresent, request.content.attachments.isEmpty { options.formIntersection([.badge, .sound]) }
            try await engine.complete(fired, options: options)
            return nil
        } catch {
            // The extension runs again on the next try: the files it attached this time go.
            if let outcome, let app {
                attachmentStore(of: app.bundleIdentifier, bundleDirectory: app.bundleDirectory, in: configuration.dataDirectory)
                    .release(outcome.request.content.attachments)
            }
            return error
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
