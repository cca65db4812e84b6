package import Foundation
import HeraldDBus
import HeraldSpawn
package import UserNotifications

/// Notifications as bubbles of the desktop's notification server (`org.freedesktop.Notifications` on the session
/// bus: GNOME, KDE, dunst, mako, xfce4-notifyd), and what the person does with them as responses.
///
/// Each presentation becomes one `Notify` call shaped by the server's capabilities (``DesktopNotification``); a
/// presentation with the id of one shown replaces its bubble, a withdrawal closes it. `ActionInvoked`,
/// `NotificationReplied` (KDE's inline reply) and `NotificationClosed` (dismissed by the person) come back as
/// ``PresenterEvent``s, from the server only: signals from any other bus client are ignored.
///
/// When the bus or the server cannot be reached (at start or later) it says so once, shows notifications on its
/// `fallback` presenter meanwhile, and connects again when the bus comes back. Which bubble is which notification
/// is kept in `stateFile`, so that an action clicked after the daemon restarted still reaches the app.
package actor DesktopPresenter: Presenter {
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    /// How long after a change the state file is written (changes in between are written together).
    static let saveDelay = Duration.milliseconds(500)

    /// What `stateFile` holds: the server (by its unique bus name) and its bubbles.
    struct SavedState: Codable {
        var address: String
        var server: String
        var bubbles: DesktopBubbles
        /// The Live Activities' bubbles, by activity id (absent from files written before them).
        var activityBubbles: [String: UInt32]?
    }

    /// A live connection to a notification server.
    struct Link {
        var connection: DBusConnection
        var capabilities: Set<String>
        /// The server's unique bus name: the only sender whose signals count.
        var server: String
        /// What `GetServerInformation` calls it: "dunst", "gnome-shell", "Plasma", …
        var serverName: String
        var signals: AsyncStream<DBusSignal>
    }

    private let address: String?
    private let stateFile: URL?
    private let fallback: (any Presenter)?
    private let log: @Sendable (String) -> Void
    private let retryDelay: Duration
    /// Where the notification center page is, for "Show"; nil: no page, no "Show".
    private let notificationCenter: NotificationCenterAddress?
    /// Opens an address in the person's browser.
    private let openPage: @Sendable (URL) -> Void

    private var link: Link?
    private var connecting: Task<Link?, Never>?
    private var lastFailure: ContinuousClock.Instant?
    private var failureReported = false
    private var bubbles = DesktopBubbles()
    /// `Notify` calls waiting for their answer, and the signals that came meanwhile for ids not known yet.
    private var notifiesInFlight = 0
    private var early: [UInt32: [DBusSignal]] = [:]
    private var saveScheduled = false
    private var saved: SavedState?
    private var events: (@Sendable (PresenterEvent) async -> Void)?
    private var reportedNoInlineReply = false
    /// The bubble of each Live Activity on screen, by activity id: replaced in place on each update.
    private var activityBubbles: [String: UInt32] = [:]

    /// - Parameters:
    ///   - address: the bus; nil: the session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    ///   - stateFile: where the bubbles' ids are kept across restarts; nil keeps them in memory.
    ///   - fallback: shows notifications while the desktop cannot be reached (the terminal); nil drops them
    ///     there (another presenter shows them anyway).
    ///   - log: hears, once per change, that the desktop was reached or lost.
    ///   - retryDelay: how long after a failed attempt the next one is made.
    ///   - notificationCenter: the page's address: bubbles of notifications with a content extension get "Show",
    ///     which opens it there with `openPage` (`xdg-open` by default).
    package init(
        address: String? = nil, stateFile: URL? = nil, fallback: (any Presenter)? = TerminalCardPresenter(),
        log: @escaping @Sendable (String) -> Void, retryDelay: Duration = .seconds(2),
        notificationCenter: NotificationCenterAddress? = nil, openPage: (@Sendable (URL) -> Void)? = nil
    ) {
        self.address = address
        self.stateFile = stateFile
        self.fallback = fallback
        self.log = log
        self.retryDelay = retryDelay
        self.notificationCenter = notificationCenter
        self.openPage = openPage ?? { url in Self.openInBrowser(url, log: log) }
        saved = stateFile.flatMap { try? JSONDecoder().decode(SavedState.self, from: Data(contentsOf: $0)) }
    }

    // MARK: Presenter

    package func present(_ presentation: Presentation) async {
        // Silenced by the Focus, part of a summary, or for the list only: no bubble of its own (it is in the notification
        // list); one it replaces goes.
        let style = presentation.card.style
        guard style.showsBanner, style.silencedBy == nil, !style.inSummary else { return await withdraw([presentation.id]) }
        guard let link = await currentLink() else {
            await fallback?.present(presentation)
            return
        }
        let previous = bubbles.serverID(of: presentation.id)
        let notification = DesktopNotification(
            presentation, capabilities: link.capabilities, replacing: previous ?? 0, canShow: notificationCenter?.url() != nil)
        notifiesInFlight += 1
        defer {
            notifiesInFlight -= 1
            if notifiesInFlight == 0 { early = [:] }
        }
        do throws(DBusError) {
            let reply = try await link.connection.call(
                destination: Self.name, path: Self.path, interface: Self.name, member: "Notify", notification.arguments, timeout: .seconds(5))
            guard let id = reply.first?.integer.flatMap(UInt32.init(exactly:)) else {
                throw DBusError.malformed("Notify answered \(reply)")
            }
            bubbles.insert(
                DesktopBubbles.Bubble(
                    serverID: id, bundleID: presentation.id.bundleID, identifier: presentation.id.identifier,
                    replyAction: notification.replyAction, reportsDismissal: presentation.reportsDismissal))
            scheduleSave()
            for signal in early.removeValue(forKey: id) ?? [] { await handle(signal, from: link) }
            if !notification.omittedActions.isEmpty, !reportedNoInlineReply {
                reportedNoInlineReply = true
                log(
                    "the desktop's notification server has no inline reply: text-input actions are left off its bubbles; "
                        + "answer with herald device respond \(presentation.id.identifier) --action \(notification.omittedActions[0]) --text '…'")
            }
        } catch {
            if Self.meansGone(error) {
                lose(link, because: "Notify failed: \(error)")
            } else {
                log("the desktop's notification server refused \(presentation.id): \(error)")
            }
            await fallback?.present(presentation)
        }
    }

    package func withdraw(_ ids: [Presentation.ID]) async {
        let closing = ids.compactMap { bubbles.serverID(of: $0) }
        guard !closing.isEmpty else { return }
        for id in closing { bubbles.remove(id) }
        scheduleSave()
        guard let link else { return }
        for id in closing {
            _ = try? await link.connection.call(
                destination: Self.name, path: Self.path, interface: Self.name, member: "CloseNotification", [.uint32(id)])
        }
    }

    /// One bubble per Live Activity, replaced in place on each change (`replaces_id`); an update without an alert
    /// replaces it quietly, one with an alert sounds and stays until closed, as iOS lights the screen for it.
    package func showActivity(_ activity: ActivityPresentation) async {
        guard let link = await currentLink() else {
            await fallback?.showActivity(activity)
            return
        }
        let bubble = DesktopNotification(activity, capabilities: link.capabilities, replacing: activityBubbles[activity.id] ?? 0)
        do throws(DBusError) {
            let reply = try await link.connection.call(
                destination: Self.name, path: Self.path, interface: Self.name, member: "Notify", bubble.arguments, timeout: .seconds(5))
            guard let id = reply.first?.integer.flatMap(UInt32.init(exactly:)) else { throw DBusError.malformed("Notify answered \(reply)") }
            activityBubbles[activity.id] = id
            scheduleSave()
        } catch {
            if Self.meansGone(error) { lose(link, because: "Notify failed: \(error)") }
            await fallback?.showActivity(activity)
        }
    }

    /// One bubble for the scheduled summary (its notifications have none of their own).
    package func presentSummary(_ summary: NotificationSummary, _ presentations: [Presentation]) async {
        guard let link = await currentLink() else { return }
        let bubble = DesktopNotification(summary, presentations, capabilities: link.capabilities)
        do throws(DBusError) {
            _ = try await link.connection.call(
                destination: Self.name, path: Self.path, interface: Self.name, member: "Notify", bubble.arguments, timeout: .seconds(5))
        } catch {
            if Self.meansGone(error) { lose(link, because: "Notify failed: \(error)") }
        }
    }

    package func removeActivity(id: String) async {
        guard let bubble = activityBubbles.removeValue(forKey: id), let link else { return }
        scheduleSave()
        _ = try? await link.connection.call(
            destination: Self.name, path: Self.path, interface: Self.name, member: "CloseNotification", [.uint32(bubble)])
    }

    /// The Unity launcher API that GNOME's docks, KDE and Plank read: `com.canonical.Unity.LauncherEntry.Update`.
    package func setBadge(_ count: Int, of app: Presentation.App) async {
        guard let link = await currentLink() else { return }
        let entry = "application://\(app.desktopEntry ?? app.bundleID).desktop"
        let objectPath =
            "/com/canonical/unity/launcherentry/"
            + String(app.bundleID.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) ? Character($0) : "_" })
        try? await link.connection.emit(
            path: objectPath, interface: "com.canonical.Unity.LauncherEntry", member: "Update",
            [.string(entry), .hints(["count": .int64(Int64(count)), "count-visible": .boolean(count > 0)])])
    }

    package func run(reporting events: @escaping @Sendable (PresenterEvent) async -> Void) async throws {
        self.events = events
        defer { saveNow() }
        while !Task.isCancelled {
            guard let link = await currentLink() else {
                try await Task.sleep(for: retryDelay)
                continue
            }
            for await signal in link.signals { await handle(signal, from: link) }
            if Task.isCancelled { break }
            lose(link, because: "the session bus closed the connection")
        }
    }

    // MARK: The server's signals

    private func handle(_ signal: DBusSignal, from link: Link) async {
        if signal.interface == "org.freedesktop.DBus", signal.member == "NameOwnerChanged" {
            // The server stopped or another took its place: its bubbles are gone.
            guard signal.body.first?.string == Self.name else { return }
            self.link?.server = signal.body.count == 3 ? signal.body[2].string ?? "" : ""
            bubbles = DesktopBubbles()
            activityBubbles = [:]
            scheduleSave()
            return
        }
        guard signal.sender == self.link?.server, signal.interface == Self.name,
            let id = signal.body.first?.integer.flatMap(UInt32.init(exactly:))
        else { return }
        guard var bubble = bubbles[id] else {
            // The server's answer to a Notify and a click on that bubble can reach this actor in either order:
            // a signal for an unknown id waits for the Notify calls under way.
            if notifiesInFlight > 0 { early[id, default: []].append(signal) }
            return
        }
        let presentation = bubble.presentationID
        var event: PresenterEvent?
        switch signal.member {
        case "ActionInvoked":
            guard signal.body.count == 2, let key = signal.body[1].string, key != DesktopNotification.inlineReplyAction, !bubble.answered else {
                return
            }
            // "Show" answers nothing: the notification stays delivered, and opens expanded on the page.
            if key == DesktopNotification.showAction {
                if let page = notificationCenter?.url(at: presentation) { openPage(page) }
                return
            }
            event = key == DesktopNotification.defaultAction ? .opened(presentation) : .action(presentation, identifier: key)
            bubble.answered = true
            bubbles.update(bubble)
        case "NotificationReplied":
            guard signal.body.count == 2, let text = signal.body[1].string, let action = bubble.replyAction, !bubble.answered else { return }
            event = .reply(presentation, action: action, text: text)
            bubble.answered = true
            bubbles.update(bubble)
        case "NotificationClosed":
            // 1 expired, 2 dismissed by the person, 3 closed by CloseNotification, 4 undefined.
            let reason = signal.body.count == 2 ? signal.body[1].integer : nil
            if reason == 2, bubble.reportsDismissal, !bubble.answered { event = .dismissed(presentation) }
            bubbles.remove(id)
        default:
            return
        }
        scheduleSave()
        if let event { await events?(event) }
    }

    /// `xdg-open URL`, which opens the person's browser (`$BROWSER` when set).
    private static func openInBrowser(_ url: URL, log: @escaping @Sendable (String) -> Void) {
        let opener = ["/usr/bin/xdg-open", "/usr/local/bin/xdg-open"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let opener else { return log("cannot open \(url.absoluteString): xdg-open is not installed (Debian: xdg-utils)") }
        // Its output is not the daemon's (which may be JSON lines for a script).
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if devNull >= 0 { Glibc.close(devNull) } }
        do {
            _ = try ChildProcess.launch(
                opener, arguments: [url.absoluteString], standardOutput: devNull >= 0 ? devNull : nil, standardError: devNull >= 0 ? devNull : nil)
        } catch {
            log("cannot open \(url.absoluteString) with \(opener): \(error)")
        }
    }

    // MARK: Connecting

    /// The live link, connecting when there is none (at most once per `retryDelay` after a failure).
    func currentLink() async -> Link? {
        if let link { return link }
        if let connecting { return await connecting.value }
        if let lastFailure, ContinuousClock.now - lastFailure < retryDelay { return nil }
        let attempt = Task { await connect() }
        connecting = attempt
        let result = await attempt.value
        connecting = nil
        return result
    }

    private func connect() async -> Link? {
        do throws(DBusError) {
            let connection: DBusConnection
            if let address {
                connection = try await DBusConnection.connect(address: address)
            } else {
                connection = try await DBusConnection.session()
            }
            let notifications = try await connection.signals(DBusMatch(path: Self.path, interface: Self.name))
            let owners = try await connection.signals(
                DBusMatch(path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"))
            let bus = ("org.freedesktop.DBus", "/org/freedesktop/DBus")
            // Starts the server when the bus can activate it (dunst, mako). A server the session started itself
            // (GNOME Shell, notification-daemon) has no .service file, and dbus-daemon then answers ServiceUnknown
            // even while the name is owned: only GetNameOwner says whether a server is there.
            _ = try? await connection.call(
                destination: bus.0, path: bus.1, interface: bus.0, member: "StartServiceByName", [.string(Self.name), .uint32(0)])
            let owner = try await connection.call(destination: bus.0, path: bus.1, interface: bus.0, member: "GetNameOwner", [.string(Self.name)])
            let capabilities = try await connection.call(destination: Self.name, path: Self.path, interface: Self.name, member: "GetCapabilities")
            let information = try? await connection.call(
                destination: Self.name, path: Self.path, interface: Self.name, member: "GetServerInformation")
            let serverName = information?.first?.string ?? "a notification server"
            let link = Link(
                connection: connection, capabilities: Set(capabilities.first?.elements?.compactMap(\.string) ?? []),
                server: owner.first?.string ?? "", serverName: serverName, signals: Self.merge(notifications, owners))
            adopt(link)
            log("desktop notifications: \(serverName) on \(connection.address) (\(link.capabilities.sorted().joined(separator: ", ")))")
            return link
        } catch {
            lastFailure = .now
            if !failureReported {
                failureReported = true
                let instead = fallback == nil ? "the other presenters show them" : "showing them on the terminal"
                let until = if case .libraryMissing = error { "" } else { " until the session bus returns" }
                log("desktop notifications unavailable (\(error)); \(instead)\(until)")
            }
            return nil
        }
    }

    /// Takes `link` as the live one; bubbles saved by an earlier run stay mapped when the same server still shows them.
    private func adopt(_ link: Link) {
        self.link = link
        failureReported = false
        lastFailure = nil
        if let saved, saved.address == link.connection.address, saved.server == link.server {
            bubbles.adopt(saved.bubbles)
            // A restarted daemon redraws its activities in the bubbles the server still shows, not in new ones.
            activityBubbles.merge(saved.activityBubbles ?? [:]) { current, _ in current }
        }
        saved = nil
        scheduleSave()
    }

    private func lose(_ lost: Link, because reason: String) {
        guard link?.connection === lost.connection else { return }
        lost.connection.close()
        link = nil
        // The bubbles went with the bus; a later bus may hand out the same names and ids.
        bubbles = DesktopBubbles()
        activityBubbles = [:]
        if let stateFile { try? FileManager.default.removeItem(at: stateFile) }
        lastFailure = .now
        failureReported = true
        log("desktop notifications lost (\(reason)); showing them on the terminal until the session bus returns")
    }

    /// Writes the state file within ``saveDelay``: a burst of notifications costs one write, not one each.
    private func scheduleSave() {
        guard stateFile != nil, !saveScheduled else { return }
        saveScheduled = true
        Task {
            try? await Task.sleep(for: Self.saveDelay)
            saveNow()
        }
    }

    private func saveNow() {
        saveScheduled = false
        guard let stateFile, let link else { return }
        let state = SavedState(address: link.connection.address, server: link.server, bubbles: bubbles, activityBubbles: activityBubbles)
        guard let data = try? JSONEncoder().encode(state) else { return }
        try? data.write(to: stateFile, options: .atomic)
    }

    /// Whether a failed call means the server (or the bus) is gone, rather than that it refused this one call.
    private static func meansGone(_ error: DBusError) -> Bool {
        switch error {
        case .closed: true
        case .remote(let name, _):
            ["ServiceUnknown", "NameHasNoOwner", "NoReply", "Disconnected", "NoServer"].contains { name == "org.freedesktop.DBus.Error." + $0 }
        default: false
        }
    }

    private static func merge(_ first: AsyncStream<DBusSignal>, _ second: AsyncStream<DBusSignal>) -> AsyncStream<DBusSignal> {
        AsyncStream { continuation in
            let task = Task {
                await withDiscardingTaskGroup { group in
                    group.addTask { for await signal in first { continuation.yield(signal) } }
                    group.addTask { for await signal in second { continuation.yield(signal) } }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
