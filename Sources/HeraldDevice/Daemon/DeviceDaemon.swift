package import Foundation
package import HeraldWire
import NIOCore
import NIOPosix
import Synchronization
package import UserNotifications
package import UserNotificationsUI

/// What happens in the daemon, for whoever runs it (`herald device` prints it).
package enum DeviceDaemonEvent: Sendable {
    case listening(socket: String)
    case registered(topic: String, deviceToken: String)
    case unregistered(topic: String, deviceToken: String)
    /// The gateway refused a request; the link stays open.
    case refused(reason: String, message: String)
    case linkClosed(reason: String)
    /// A background push, handed to the app (launched if needed) and not presented.
    case background(apnsID: String, bundleID: String, payload: Data)
    /// What the app's service extension did with a notification.
    case serviceExtension(apnsID: String, bundleID: String, outcome: String)
    case launched(bundleID: String, pid: Int32, reason: String)
    /// The notification center page is served at this address (`--ui-port`).
    case notificationCenter(URL)
    /// The gateway gave (or retired) an app's push-to-start token or an activity's token.
    case liveActivityToken(DeviceLinkMessage)
    /// A Live Activity started, changed or went away; `view` is what its widget extension drew of it.
    case activity(ActivityChange, view: ViewSnapshot?)
    /// A `liveactivity` push that changed nothing, and why (iOS drops these without a word to the provider).
    case activityPushDropped(apnsID: String, bundleID: String, reason: String)
    /// The UnifiedPush distributor: on the bus, a registration, a web push message for an app.
    case unifiedPush(UnifiedPushEvent)
    /// The Focus went on (or changed) or off (nil); one at start only when it is on.
    case focus(Focus.Status?)
    case problem(String)
}

/// Settings of the device daemon.
package struct DeviceDaemonConfiguration: Sendable {
    /// `DATA_DIR`: the notification store, installed apps, the socket (`device/daemon.sock`).
    package var dataDirectory: URL
    /// The link to the gateway; nil runs local notifications only.
    package var link: GatewayLink?
    /// Apps to register with the gateway besides the installed ones (`herald device --topic`); not being
    /// installed, they have no process to ask, so naming them authorizes them.
    package var topics: [String] = []
    /// How long a service extension may take before `serviceExtensionTimeWillExpire()`.
    package var extensionBudget: Duration = .seconds(30)
    /// How long after `serviceExtensionTimeWillExpire()` the extension is killed.
    package var extensionGrace: Duration = .seconds(5)
    /// How long a running app may take to answer `willPresent`; after it the app counts as not running.
    package var willPresentTimeout: Duration = .seconds(10)
    /// How long `registerForRemoteNotifications()` waits for the gateway.
    package var registrationTimeout: Duration = .seconds(15)
    /// How long an app's widget extension may take to start and draw its first Live Activity view, and each later one.
    package var widgetStartBudget: Duration = .seconds(2)
    package var widgetDrawBudget: Duration = .seconds(1)
    /// `herald device --ui-port`: the loopback port of the notification center page (0: any free one); nil: no page.
    package var notificationCenterPort: Int?
    /// Where the page is, once served.
    package var notificationCenterAddress = NotificationCenterAddress()
    /// Be a UnifiedPush distributor on the D-Bus session bus (with a gateway link; docs/unifiedpush.md).
    package var distributesUnifiedPush = false
    /// The session bus's address; nil: the environment's (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    package var sessionBusAddress: String?

    package init(dataDirectory: URL, link: GatewayLink? = nil) {
        self.dataDirectory = dataDirectory
        self.link = link
    }
}

/// The device's notification daemon, in the role of iOS's notification center: it hosts the engine for every app
/// on the machine, holds the gateway link, schedules and presents, runs service extensions, and routes what
/// people do back to the apps — launching them when they are not running. Apps reach it over a Unix socket.
package final class DeviceDaemon: Sendable {
    let configuration: DeviceDaemonConfiguration
    let store: NotificationStore
    let engine: LocalEngine
    let apps: InstalledApps
    let runner: ServiceExtensionRunner
    /// The Live Activities of every app on the device.
    let activities: ActivityCenter
    /// Their views, as the apps' widget extensions draw them.
    let activityViews: ActivityViews
    let launcher: AppLauncher
    let report: @Sendable (DeviceDaemonEvent) -> Void
    let sessions = Mutex<[ObjectIdentifier: AppSession]>([:])
    let link = Mutex(LinkState())
    /// Inbox entries being presented now (apns-ids).
    let inboxInFlight = Mutex<Set<String>>([])
    /// How many times each inbox entry failed to be presented (apns-id → count), for its back-off.
    let presentationFailures = Mutex<[String: Int]>([:])
    /// Apps whose queued events are being handed over (true: look again when done).
    let eventDelivery = Mutex<[String: Bool]>([:])
    let inboxSignal: AsyncStream<Void>.Continuation
    let inboxSignals: AsyncStream<Void>
    let scheduler: CenterRuntime
    /// Every surface notifications are shown on, fed by the engine.
    let presentation: PresenterGroup
    /// The notification center page's list, when it is served.
    private let center: NotificationCenterPresenter?
    /// The desktop's notification server, whose own do-not-disturb a Focus may follow.
    let desktop: DesktopPresenter?

    /// Apps' `registerForRemoteNotifications()` calls waiting for the gateway.
    let registrations = RegistrationWaiters()
    /// UnifiedPush apps' registrations, their `Register` calls waiting for the gateway (by ``webPushKey(_:_:)``),
    /// and the distributor once it is on the bus (``unifiedPushTried`` opens when it is, or cannot be).
    let unifiedPush: UnifiedPushRegistrations
    let unifiedPushWaiters = RegistrationWaiters()
    let distributor = Mutex<UnifiedPushDistributor?>(nil)
    let unifiedPushTried = AsyncLatch()

    /// What the daemon knows of the gateway link.
    struct LinkState {
        var sender: GatewayLinkSender?
        var tokens: [String: String] = [:]
    }

    /// Opens the store and the registry; `presenters` show notifications (all of them, each notification),
    /// `report` hears everything else.
    package init(
        configuration: DeviceDaemonConfiguration,
        presenters: [any Presenter],
        prompt: any AuthorizationPrompt,
        report: @escaping @Sendable (DeviceDaemonEvent) -> Void
    ) throws {
        self.configuration = configuration
        desktop = presenters.lazy.compactMap { $0 as? DesktopPresenter }.first
        let dataDirectory = configuration.dataDirectory
        store = try NotificationStore(path: dataDirectory.appendingPathComponent("notifications.sqlite").path, owner: .daemonQueues)
        apps = InstalledApps(dataDirectory: dataDirectory)
        unifiedPush = UnifiedPushRegistrations(dataDirectory: dataDirectory)
        activities = ActivityCenter(store: try ActivityStore(path: dataDirectory.appendingPathComponent("activities.sqlite").path))
        activityViews = ActivityViews(
            environment: { HostedContentExtension.environment(bundleID: $0, dataDirectory: dataDirectory) },
            startBudget: configuration.widgetStartBudget, drawBudget: configuration.widgetDrawBudget)
        let (apps, store) = (self.apps, self.store)
        let avatars = AvatarFiles(directory: dataDirectory.appendingPathComponent("device/avatars"))
        let app = { @Sendable (bundleID: String) in Presentation.App((try? apps.app(bundleID: bundleID)) ?? nil, bundleID: bundleID) }
        let center = configuration.notificationCenterPort.map { _ in NotificationCenterPresenter() }
        self.center = center
        presentation = PresenterGroup(
            presenters: presenters + [center].compactMap { $0 },
            describe: { card in
                let categories = card.categoryIdentifier == nil ? [] : (try? await store.perform { try $0.categories(of: card.topic) }) ?? []
                let category = card.categoryIdentifier ?? ""
                // The installed app, read once: its name and icon, and whether it has a content extension for the category.
                let manifest = (try? apps.app(bundleID: card.topic)) ?? nil
                var presentation = Presentation(
                    card: card, app: Presentation.App(manifest, bundleID: card.topic), category: categories.first { $0.identifier == category },
                    hasContentExtension: !category.isEmpty && manifest?.contentExtension(forCategory: category) != nil)
                presentation.senderAvatarPath = card.sender?.avatar.flatMap(avatars.path)
                return presentation
            }, app: app)
        engine = LocalEngine(
            store: store, calendar: .current, prompt: prompt, presenter: presentation,
            attachments: { bundleID in
                attachmentStore(of: bundleID, bundleDirectory: (try? apps.app(bundleID: bundleID))?.bundleDirectory, in: dataDirectory)
            },
            entitlements: { AppEntitlements(bundleDirectory: (try? apps.app(bundleID: $0))?.bundleDirectory) }
        )
        runner = ServiceExtensionRunner(budget: configuration.extensionBudget, grace: configuration.extensionGrace)
        launcher = AppLauncher(dataDirectory: dataDirectory)
        self.report = report
        (inboxSignals, inboxSignal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        scheduler = CenterRuntime(
            bundleID: "", engine: .success(engine), location: SimulatedLocation(dataDirectory: dataDirectory), allApps: true
        )
    }

    /// The socket apps connect to.
    package var socketPath: String { DaemonSocket.path(dataDirectory: configuration.dataDirectory) }

    /// Runs until cancelled: the socket, the scheduler, the inbox, and the gateway link.
    ///
    /// - Throws: When another daemon already serves this data directory, or the socket cannot be made.
    package func run() async throws {
        let path = socketPath
        if DaemonSocket.isListening(at: path) {
            throw UNError(
                .notificationsNotAllowed, "a device daemon already runs for \(configuration.dataDirectory.path) (its socket \(path) answers)")
        }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                Self.peerCredentials(of: channel).flatMapThrowing { peer in (peer, try channel.daemonLines()) }
            }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        _ = try? await store.perform { try $0.pruneInbox(before: Date().addingTimeInterval(-30 * 24 * 3600)) }
        try await authorizeNamedTopics()
        scheduler.start { [self] fired in await presentationOptions(for: fired) }
        for activity in (try? activities.current()) ?? [] {
            // What a previous run showed, shown again.
            _ = await presentActivity(ActivityChange(kind: .updated, activity: activity))
        }
        report(.listening(socket: path))
        defer {
            launcher.terminateAll()
            try? FileManager.default.removeItem(atPath: path)
        }
        // Each part is a child task, the socket's accept loop too: when one fails, the group cancels the others and the
        // daemon ends with that failure's reason.
        do {
            try await runParts(server)
        } catch {
            await activityViews.closeAll()
            throw error
        }
        await activityViews.closeAll()
    }

    /// The socket, the inbox, the presenters, the link, the activity clock and the page, until one fails or all end.
    private func runParts(_ server: NIOAsyncChannel<(PeerCredentials, NIOAsyncChannel<ByteBuffer, ByteBuffer>), Never>) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [self] in await processInbox() }
            group.addTask { [self] in
                await presentation.run { [self] event in
                    do throws(UNError) {
                        _ = try await respond(event.response)
                    } catch {
                        report(.problem("cannot answer \(event.response.identifier) of \(event.response.bundleID ?? ""): \(error.message)"))
                    }
                }
            }
            if let gatewayLink = configuration.link {
                group.addTask { [self] in try await runLink(gatewayLink) }
            }
            if configuration.distributesUnifiedPush, configuration.link != nil {
                group.addTask { [self] in await runDistributor() }
            } else {
                unifiedPushTried.open()
            }
            group.addTask { [self] in await runActivityClock() }
            group.addTask { [self] in await followDeviceState() }
            if let center, let port = configuration.notificationCenterPort {
                let page = try notificationCenterServer(center)
                for delivered in await deliveredPresentations() { await center.present(delivered) }
                group.addTask { [self] in
                    do {
                        try await page.run(port: port) { [self] port in
                            configuration.notificationCenterAddress.set(port: port, secret: page.secret)
                            configuration.notificationCenterAddress.url().map { report(.notificationCenter($0)) }
                        }
                    } catch {
                        throw UNError(
                            .notificationsNotAllowed, "cannot serve the notification center on 127.0.0.1:\(port) (--ui-port): \(error)")
                    }
                }
            }
            group.addTask { [self] in
                try await server.executeThenClose { connections in
                    try await withThrowingDiscardingTaskGroup { sessions in
                        for try await (peer, channel) in connections {
                            sessions.addTask { [self] in await serve(channel, peer: peer) }
                        }
                    }
                }
            }
        }
    }

    /// Apps named with `--topic` have no process to ask for authorization: naming them is the person's yes.
    private func authorizeNamedTopics() async throws {
        let named = configuration.topics.filter { (try? apps.app(bundleID: $0)) == nil }
        try await store.perform { store in
            for topic in named where (try store.settings(of: topic))?.authorizationStatus ?? .notDetermined == .notDetermined {
                try store.setSettings(.answered(true, options: [.alert, .sound, .badge]), of: topic)
            }
        }
    }

    private static func peerCredentials(of channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(PeerCredentials(pid: 0, uid: UInt32.max))
        }
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
            .map { (credentials: KernelPeerCredentials) in PeerCredentials(pid: credentials.pid, uid: credentials.uid) }
    }

    /// Linux's `struct ucred` (pid, uid, gid), which Glibc exports only to `_GNU_SOURCE` code.
    private struct KernelPeerCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    // MARK: Connections

    /// Who a peer is: an installed app (by its executable), the `herald` binary, or refused.
    func role(of peer: PeerCredentials) -> AppSession.Role {
        guard peer.uid == getuid() else { return .refused("the device daemon serves only its own user's apps") }
        guard let executable = peer.executable else { return .refused("the device daemon cannot tell which program this is") }
        if executable == PeerCredentials.ownExecutable { return .control }
        do {
            if let app = try apps.app(executable: executable) { return .app(app) }
        } catch {
            return .refused("the installed apps cannot be read: \(error)")
        }
        return .refused(
            """
            \(executable.path) is not an installed app: install it with `herald apps install PATH/Name.app` \
            (its Info.plist names the bundle id), then start it again
            """)
    }

    /// One connection: its calls are answered one at a time, in order; answers to the daemon's questions are
    /// taken as they come.
    private func serve(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, peer: PeerCredentials) async {
        try? await channel.executeThenClose { inbound, outbound in
            let session = AppSession(role: role(of: peer), peer: peer, conversation: DaemonConversation(outbound: outbound))
            let key = ObjectIdentifier(session)
            sessions.withLock { $0[key] = session }
            defer { sessions.withLock { _ = $0.removeValue(forKey: key) } }
            let (calls, queue) = AsyncStream.makeStream(of: (id: Int, call: DaemonCall).self)
            await withDiscardingTaskGroup { group in
                group.addTask { [self] in
                    for await (id, call) in calls {
                        await session.conversation.send(await answer(call, id: id, from: session))
                    }
                }
                do {
                    for try await line in inbound {
                        guard let message = try? DaemonMessage.decode(Data(line.readableBytesView)) else { continue }
                        if session.conversation.deliver(message) { continue }
                        if case .call(let id, let call) = message { queue.yield((id, call)) }
                    }
                } catch {}
                session.conversation.close()
                queue.finish()
            }
        }
    }

    /// The sessions of one app.
    func sessions(of bundleID: String) -> [AppSession] {
        sessions.withLock { $0.values.filter { $0.bundleID == bundleID } }
    }

    // MARK: Presentation

    /// A running app with a delegate decides (`willPresent`); a running app without one presents nothing, as an
    /// iOS app in the foreground; an app that does not run gets everything its settings allow.
    func presentationOptions(for fired: LocalEngine.Fired) async -> UNNotificationPresentationOptions {
        let running = sessions(of: fired.bundleID)
        if let session = running.first(where: \.handlesDelegate) {
            let reply = await session.conversation.request(timeout: configuration.willPresentTimeout) {
                .ask(id: $0, question: .willPresent(fired.notification))
            }
            if case .answer(_, let options)? = reply { return UNNotificationPresentationOptions(rawValue: options) }
            report(.problem("\(fired.bundleID) did not answer willPresent in time; presenting as if it did not run"))
            return .whenAppIsNotRunning
        }
        return running.isEmpty ? .whenAppIsNotRunning : []
    }

    /// Makes the scheduler look at the next fire date again.
    func wakeScheduler() {
        scheduler.wake()
    }
}

/// An app's attachment store in the daemon's data dir; an app without a bundle (named with `--topic`) has no
/// bundle files to copy from.
func attachmentStore(of bundleID: String, bundleDirectory: URL?, in dataDirectory: URL) -> AttachmentStore {
    AttachmentStore(
        directory: dataDirectory.appendingPathComponent("attachments/\(bundleID)"),
        bundleDirectory: bundleDirectory ?? dataDirectory.appendingPathComponent("no-bundle")
    )
}
