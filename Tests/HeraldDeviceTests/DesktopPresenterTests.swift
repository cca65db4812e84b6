import Foundation
import HeraldDBus
import HeraldDesktopTesting
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldDevice
@testable import UserNotifications

/// The desktop presenter against a real `dbus-daemon` and a scripted notification server: what each `Notify`
/// carries for what the server advertises, and what the person's clicks, replies and dismissals become.
@Suite(.timeLimit(.minutes(1))) struct DesktopPresenterTests {
    /// Records what the presenter reports and what it leaves to its fallback.
    final class Recorder: Presenter {
        let events = Watched<[PresenterEvent]>([])
        let fallback = Mutex<[Presentation.ID]>([])
        let log = Watched<[String]>([])

        func present(_ presentation: Presentation) async { fallback.withLock { $0.append(presentation.id) } }

        func report(_ event: PresenterEvent) { events.update { $0.append(event) } }

        func waitForEvents(_ count: Int) async throws {
            guard await events.wait(until: { $0.count >= count }) else { throw CancellationError() }
        }
    }

    /// A presenter on `bus`, its events and fallback going to `recorder`, running until the test ends.
    private static func presenter(
        on bus: TestSessionBus, _ recorder: Recorder, stateFile: URL? = nil, retryDelay: Duration = .milliseconds(50)
    ) -> (DesktopPresenter, Task<Void, Never>) {
        let presenter = DesktopPresenter(
            address: bus.address, stateFile: stateFile, fallback: recorder, log: { line in recorder.log.update { $0.append(line) } },
            retryDelay: retryDelay)
        let running = Task { _ = try? await presenter.run { recorder.report($0) } }
        return (presenter, running)
    }

    /// A test bus, a scripted server on it (advertising `capabilities`) and a running presenter reporting to a recorder.
    struct Desktop {
        let bus: TestSessionBus
        let server: ScriptedNotificationServer
        let recorder: Recorder
        let presenter: DesktopPresenter
        let running: Task<Void, Never>
    }

    private static func desktop(capabilities: [String] = ScriptedNotificationServer.everyCapability) async throws -> Desktop {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address, capabilities: capabilities)
        let recorder = Recorder()
        let (presenter, running) = presenter(on: bus, recorder)
        return Desktop(bus: bus, server: server, recorder: recorder, presenter: presenter, running: running)
    }

    private static let reply = UNTextInputNotificationAction(
        identifier: "reply", title: "Reply", options: [], textInputButtonTitle: "Send", textInputPlaceholder: "Your answer")

    static func presentation(
        _ identifier: String = "order-42", title: String? = "Order <42>", subtitle: String? = "Shipped", body: String? = "Fish & chips",
        category: UNNotificationCategory? = nil, attachments: [String] = [], style: NotificationCard.Style = playing()
    ) -> Presentation {
        var card = NotificationCard(
            identifier: identifier, topic: "com.example.shop", title: title, subtitle: subtitle, body: body, sound: "default", date: Date())
        card.attachments = attachments.map { NotificationCard.Attachment(identifier: $0, path: $0) }
        card.style = style
        let app = Presentation.App(
            bundleID: "com.example.shop", displayName: "Shop", iconPath: "/apps/Shop.app/AppIcon.png", bundleDirectory: "/apps/Shop.app",
            desktopEntry: "com.example.shop")
        return Presentation(card: card, app: app, category: category.map(CategoryRecord.init))
    }

    static func playing(_ level: UNNotificationInterruptionLevel = .active) -> NotificationCard.Style {
        var style = NotificationCard.Style()
        style.playsSound = true
        style.interruptionLevel = level
        return style
    }

    static let orderCategory = UNNotificationCategory(
        identifier: "ORDER",
        actions: [
            UNNotificationAction(identifier: "track", title: "Track", options: [.foreground]),
            UNNotificationAction(identifier: "cancel", title: "Cancel order", options: [.destructive]), reply,
        ], intentIdentifiers: [], options: [.customDismissAction])

    // MARK: What Notify carries

    @Test func aFullServerGetsTitleBodyActionsInlineReplyImageIconAndSound() async throws {
        let desktop = try await Self.desktop()
        let (server, recorder, presenter) = (desktop.server, desktop.recorder, desktop.presenter)
        defer { desktop.running.cancel() }
        await presenter.present(Self.presentation(category: Self.orderCategory, attachments: ["/tmp/a/photo.jpg", "/tmp/a/more.png"]))
        let notification = try await server.waitForNotification()
        #expect(notification.appName == "Shop" && notification.appIcon == "/apps/Shop.app/AppIcon.png" && notification.replacesID == 0)
        #expect(notification.summary == "Order <42> — Shipped")
        #expect(notification.body == "Fish &amp; chips")
        #expect(notification.actions == ["default", "Open", "track", "Track", "cancel", "Cancel order", "inline-reply", "Reply"])
        #expect(
            notification.hints == [
                "urgency": .byte(1), "desktop-entry": .string("com.example.shop"), "image-path": .string("file:///tmp/a/photo.jpg"),
                "sound-name": .string("message-new-instant"), "x-kde-reply-placeholder-text": .string("Your answer"),
                "x-kde-reply-submit-button-text": .string("Send"),
            ])
        #expect(notification.expireTimeout == -1)
        #expect(recorder.fallback.withLock { $0 }.isEmpty)
    }

    @Test func aServerWithoutActionsMarkupOrInlineReplyGetsWhatItCanShow() async throws {
        let desktop = try await Self.desktop(capabilities: ["body", "actions"])
        let (server, recorder, presenter) = (desktop.server, desktop.recorder, desktop.presenter)
        defer { desktop.running.cancel() }
        await presenter.present(Self.presentation(category: Self.orderCategory))
        let withActions = try await server.waitForNotification()
        #expect(withActions.body == "Fish & chips")
        // No inline reply: the text-input action is left off, and the log says how to answer instead, once.
        #expect(withActions.actionKeys == ["default", "track", "cancel"])
        #expect(withActions.hints["x-kde-reply-placeholder-text"] == nil)
        await presenter.present(Self.presentation("second", category: Self.orderCategory))
        _ = try await server.waitForNotification(2)
        #expect(recorder.log.value.filter { $0.contains("no inline reply") }.count == 1)

        let bare = try await TestSessionBus()
        let bareServer = try await ScriptedNotificationServer.start(on: bare.address, capabilities: [])
        let (barePresenter, bareRunning) = Self.presenter(on: bare, recorder)
        defer { bareRunning.cancel() }
        await barePresenter.present(Self.presentation(category: Self.orderCategory))
        let folded = try await bareServer.waitForNotification()
        #expect(folded.summary == "Order <42> — Shipped: Fish & chips" && folded.body == "")
        #expect(folded.actions.isEmpty)
    }

    /// The style as the engine makes it from the content, the app's settings and its presentation options.
    static func style(
        _ level: UNNotificationInterruptionLevel = .active, sound: UNNotificationSound? = .default, status: UNAuthorizationStatus = .authorized,
        critical: Bool = false, soundOn: Bool = true, previews: UNShowPreviewsSetting = .always,
        options: UNNotificationPresentationOptions = [.banner, .sound], alertStyle: UNAlertStyle = .banner
    ) throws -> NotificationCard.Style {
        let content = UNMutableNotificationContent()
        content.title = "Hello"
        content.sound = sound
        content.interruptionLevel = level
        var settings = SettingsRecord.answered(
            true, options: critical ? [.alert, .sound, .criticalAlert] : [.alert, .sound], entitlements: [.timeSensitive, .criticalAlerts])
        settings.alertStyle = alertStyle
        settings.authorizationStatus = status
        settings.soundSetting = soundOn ? .enabled : .disabled
        settings.showPreviewsSetting = previews
        return NotificationCard.Style(content: try ContentRecord(content), bundleID: "com.example.app", settings: settings, options: options)
    }

    @Test func interruptionLevelsSoundsQuietDeliveryAndHiddenPreviews() async throws {
        let desktop = try await Self.desktop()
        let (server, presenter) = (desktop.server, desktop.presenter)
        defer { desktop.running.cancel() }
        let sound = ["sound-name": DBusValue.string("message-new-instant")]
        let silent = ["suppress-sound": DBusValue.boolean(true)]
        let placeholder = UNNotificationCategory(
            identifier: "SECRET", actions: [], intentIdentifiers: [], hiddenPreviewsBodyPlaceholder: "New message", options: [])
        let cases: [(String, NotificationCard.Style, [String: DBusValue], Int32)] = [
            ("active", try Self.style(), sound.merging(["urgency": .byte(1)]) { a, _ in a }, -1),
            ("passive", try Self.style(.passive), silent.merging(["urgency": .byte(0), "transient": .boolean(true)]) { a, _ in a }, -1),
            ("time-sensitive", try Self.style(.timeSensitive), sound.merging(["urgency": .byte(1)]) { a, _ in a }, 0),
            ("critical", try Self.style(.critical, critical: true), sound.merging(["urgency": .byte(2)]) { a, _ in a }, 0),
            // Critical without critical-alert authorization is time-sensitive.
            ("critical-unauthorized", try Self.style(.critical), sound.merging(["urgency": .byte(1)]) { a, _ in a }, 0),
            ("provisional", try Self.style(status: .provisional), silent.merging(["urgency": .byte(0)]) { a, _ in a }, -1),
            ("sound-off", try Self.style(soundOn: false), silent.merging(["urgency": .byte(1)]) { a, _ in a }, -1),
            ("no-sound-option", try Self.style(options: [.banner]), silent.merging(["urgency": .byte(1)]) { a, _ in a }, -1),
            ("no-sound", try Self.style(sound: nil), silent.merging(["urgency": .byte(1)]) { a, _ in a }, -1),
            // The app's alert style is persistent (.alert): its banners stay until answered.
            ("persistent", try Self.style(alertStyle: .alert), sound.merging(["urgency": .byte(1)]) { a, _ in a }, 0),
            ("hidden", try Self.style(previews: .never), sound.merging(["urgency": .byte(1)]) { a, _ in a }, -1),
        ]
        for (index, (identifier, style, hints, timeout)) in cases.enumerated() {
            let category = identifier == "hidden" ? placeholder : nil
            await presenter.present(Self.presentation(identifier, category: category, attachments: ["/tmp/x.png"], style: style))
            let notification = try await server.waitForNotification(index + 1)
            var expected = hints
            if identifier != "hidden" { expected["image-path"] = .string("file:///tmp/x.png") }
            #expect(notification.hints.filter { $0.key != "desktop-entry" } == expected, "\(identifier)")
            #expect(notification.expireTimeout == timeout, "\(identifier)")
        }
        let hidden = try #require(server.notifications.last)
        #expect(hidden.summary == "Shop" && hidden.body == "New message")
    }

    /// Silenced by the Focus, or for the list only: no bubble; a bubble it replaces closes (the notification stays in
    /// the list).
    @Test func aSilencedNotificationHasNoBubbleAndClosesTheOneItReplaces() async throws {
        let desktop = try await Self.desktop()
        let (server, presenter) = (desktop.server, desktop.presenter)
        defer { desktop.running.cancel() }
        var silenced = Self.playing()
        silenced.silencedBy = "Work"
        await presenter.present(Self.presentation("quiet", title: "Shh", style: silenced))
        var listOnly = Self.playing()
        listOnly.showsBanner = false  // the app's alerts are off, or willPresent said .list alone
        await presenter.present(Self.presentation("listed", title: "In the list", style: listOnly))
        await presenter.present(Self.presentation("score", title: "1 : 0"))
        let shown = try await server.waitForNotification(1)
        #expect(shown.summary.hasPrefix("1 : 0"))
        await presenter.present(Self.presentation("score", title: "2 : 0", style: silenced))
        let events = try await server.waitForEvents(2)
        #expect(events.last == .close(shown.id))
        #expect(server.notifications.count == 1)
    }

    /// UNNotificationAttachmentOptionsThumbnailHiddenKey: the bubble shows no image of it.
    @Test func aHiddenThumbnailIsNotTheBubblesImage() async throws {
        let desktop = try await Self.desktop()
        defer { desktop.running.cancel() }
        var presentation = Self.presentation(attachments: ["/tmp/x.png"])
        presentation.card.attachments[0].hidesThumbnail = true
        await desktop.presenter.present(presentation)
        let notification = try await desktop.server.waitForNotification()
        #expect(notification.hints["image-path"] == nil)
    }

    @Test func aBundleSoundPlaysFromTheBundle() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("chime.wav", [0x52, 0x49, 0x46, 0x46])
        let desktop = try await Self.desktop()
        let (server, presenter) = (desktop.server, desktop.presenter)
        defer { desktop.running.cancel() }
        var style = Self.playing()
        style.soundName = "chime.wav"
        var presentation = Self.presentation(style: style)
        presentation.app.bundleDirectory = directory.url.path
        await presenter.present(presentation)
        let notification = try await server.waitForNotification()
        #expect(notification.hints["sound-file"] == .string(directory.url.path + "/chime.wav"))
        #expect(notification.hints["sound-name"] == nil)
    }

    // MARK: Replacing, withdrawing, badges

    @Test func aReplacementReplacesTheBubbleAndAWithdrawalClosesIt() async throws {
        let desktop = try await Self.desktop()
        let (server, presenter) = (desktop.server, desktop.presenter)
        defer { desktop.running.cancel() }
        await presenter.present(Self.presentation("score", title: "1 : 0"))
        await presenter.present(Self.presentation("other", title: "Other"))
        await presenter.present(Self.presentation("score", title: "2 : 0"))
        let replaced = try await server.waitForNotification(3)
        #expect(replaced.replacesID == 1 && replaced.id == 1 && replaced.summary == "2 : 0 — Shipped")
        await presenter.withdraw([Presentation.ID(bundleID: "com.example.shop", identifier: "score"), .init(bundleID: "x", identifier: "y")])
        let events = try await server.waitForEvents(4)
        #expect(events.last == .close(1))
    }

    @Test func aBadgeIsSentToTheLauncher() async throws {
        let desktop = try await Self.desktop()
        let (server, presenter) = (desktop.server, desktop.presenter)
        defer { desktop.running.cancel() }
        await presenter.setBadge(3, of: Presentation.App(bundleID: "com.example.shop", desktopEntry: "shop"))
        await presenter.setBadge(0, of: Presentation.App(bundleID: "com.example.other"))
        let events = try await server.waitForEvents(2)
        #expect(
            events == [
                .launcherUpdate(appURI: "application://shop.desktop", properties: ["count": .int64(3), "count-visible": .boolean(true)]),
                .launcherUpdate(
                    appURI: "application://com.example.other.desktop", properties: ["count": .int64(0), "count-visible": .boolean(false)]),
            ])
    }

    // MARK: What the person does

    /// A notification whose category has a content extension gets "Show" while the notification center page is
    /// served; "Show" opens the page at it, and answers nothing (the notification stays delivered).
    @Test func showOpensTheNotificationCenterAtTheNotification() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address, capabilities: ScriptedNotificationServer.everyCapability)
        let recorder = Recorder()
        let center = NotificationCenterAddress()
        let opened = Watched<[URL]>([])
        let presenter = DesktopPresenter(
            address: bus.address, fallback: recorder, log: { _ in }, retryDelay: .milliseconds(50), notificationCenter: center,
            openPage: { url in opened.update { $0.append(url) } })
        let running = Task { _ = try? await presenter.run { recorder.report($0) } }
        defer { running.cancel() }
        var expandable = Self.presentation("episode 12", category: Self.orderCategory)
        expandable.hasContentExtension = true

        await presenter.present(expandable)  // the page is not served yet: no "Show"
        center.set(port: 8123, secret: "s3cret")
        await presenter.present(Self.presentation("plain", category: Self.orderCategory))
        await presenter.present(expandable)
        let notifications = try await server.waitForNotification(3)
        #expect(
            server.notifications.map(\.actionKeys) == [
                ["default", "track", "cancel", "inline-reply"], ["default", "track", "cancel", "inline-reply"],
                ["default", "herald-show", "track", "cancel", "inline-reply"],
            ])
        try await server.invokeAction("herald-show", on: notifications.id)
        #expect(await opened.wait { !$0.isEmpty })
        #expect(opened.value == [URL(string: "http://127.0.0.1:8123/s3cret/#com.example.shop/episode%2012")!])
        try await server.invokeAction("track", on: notifications.id)
        try await recorder.waitForEvents(1)
        #expect(recorder.events.value == [.action(expandable.id, identifier: "track")])
    }

    @Test func clicksRepliesAndDismissalsBecomeResponses() async throws {
        let desktop = try await Self.desktop()
        let (server, recorder, presenter) = (desktop.server, desktop.recorder, desktop.presenter)
        defer { desktop.running.cancel() }
        let plain = UNNotificationCategory(identifier: "PLAIN", actions: [], intentIdentifiers: [], options: [])
        for (identifier, category) in [
            ("a", Self.orderCategory), ("b", Self.orderCategory), ("c", Self.orderCategory), ("d", Self.orderCategory), ("e", plain),
            ("f", Self.orderCategory), ("g", Self.orderCategory),
        ] {
            await presenter.present(Self.presentation(identifier, category: category))
        }
        _ = try await server.waitForNotification(7)
        try await server.invokeAction("default", on: 1)
        try await server.invokeAction("track", on: 2)
        try await server.close(2, reason: 2)  // the close that follows an action is no dismissal
        try await server.reply("on my way", to: 3)
        try await server.close(4, reason: 1)  // expired: not a dismissal
        try await server.close(5, reason: 2)  // dismissed, but the category does not ask to hear of it
        try await server.close(6, reason: 2)
        try await server.invokeAction("track", on: 99)  // not ours
        // The server's signals arrive in order: once the last one is heard, every one before it was handled.
        try await server.invokeAction("cancel", on: 7)
        try await recorder.waitForEvents(5)
        let id = { Presentation.ID(bundleID: "com.example.shop", identifier: $0) }
        #expect(
            recorder.events.value == [
                .opened(id("a")), .action(id("b"), identifier: "track"), .reply(id("c"), action: "reply", text: "on my way"), .dismissed(id("f")),
                .action(id("g"), identifier: "cancel"),
            ])
    }

    /// The click can reach the daemon before the answer to the Notify that showed its bubble.
    @Test func aClickAheadOfItsBubblesIdIsNotLost() async throws {
        let desktop = try await Self.desktop()
        let (server, recorder, presenter) = (desktop.server, desktop.recorder, desktop.presenter)
        defer { desktop.running.cancel() }
        server.clickBeforeAnswering("track")
        for identifier in ["a", "b", "c"] { await presenter.present(Self.presentation(identifier, category: Self.orderCategory)) }
        try await recorder.waitForEvents(3)
        let id = { Presentation.ID(bundleID: "com.example.shop", identifier: $0) }
        #expect(
            Set(recorder.events.value) == [
                .action(id("a"), identifier: "track"), .action(id("b"), identifier: "track"), .action(id("c"), identifier: "track"),
            ])
    }

    @Test func signalsFromAnyoneButTheServerAreIgnored() async throws {
        let desktop = try await Self.desktop()
        let (bus, server, recorder, presenter) = (desktop.bus, desktop.server, desktop.recorder, desktop.presenter)
        defer { desktop.running.cancel() }
        await presenter.present(Self.presentation(category: Self.orderCategory))
        _ = try await server.waitForNotification()
        let forger = try await DBusConnection.connect(address: bus.address)
        try await forger.emit(
            path: ScriptedNotificationServer.path, interface: ScriptedNotificationServer.name, member: "ActionInvoked",
            [.uint32(1), .string("cancel")])
        // The bus answers the forger's next call only after routing its signal, so the forged signal reaches the
        // presenter before the server's: once the server's is heard, the forged one was handled.
        _ = try await forger.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
        try await server.invokeAction("track", on: 1)
        try await recorder.waitForEvents(1)
        #expect(
            recorder.events.value == [.action(Presentation.ID(bundleID: "com.example.shop", identifier: "order-42"), identifier: "track")])
    }

    // MARK: When the desktop goes away

    @Test func withoutABusNotificationsGoToTheFallback() async throws {
        let recorder = Recorder()
        let presenter = DesktopPresenter(
            address: "unix:path=/nonexistent/bus", fallback: recorder, log: { line in recorder.log.update { $0.append(line) } })
        await presenter.present(Self.presentation("one"))
        await presenter.present(Self.presentation("two"))
        #expect(recorder.fallback.withLock { $0 }.map(\.identifier) == ["one", "two"])
        let log = recorder.log.value
        #expect(
            log.count == 1 && log[0].hasPrefix("desktop notifications unavailable (cannot reach the D-Bus session bus at unix:path=/nonexistent/bus"))
    }

    @Test func aRefusedNotificationGoesToTheFallbackAndTheServerStays() async throws {
        let desktop = try await Self.desktop()
        let (server, recorder, presenter) = (desktop.server, desktop.recorder, desktop.presenter)
        defer { desktop.running.cancel() }
        server.refuseNotify(true)
        await presenter.present(Self.presentation("refused"))
        server.refuseNotify(false)
        await presenter.present(Self.presentation("shown"))
        #expect(try await server.waitForNotification().id == 1)
        #expect(recorder.fallback.withLock { $0 }.map(\.identifier) == ["refused"])
        let log = recorder.log.value
        #expect(
            log.contains {
                $0.hasPrefix("the desktop's notification server refused com.example.shop/refused: org.freedesktop.DBus.Error.InvalidArgs")
            })
        #expect(!log.contains { $0.hasPrefix("desktop notifications lost") } && log.filter { $0.hasPrefix("desktop notifications: ") }.count == 1)
    }

    @Test func aBusThatDiesFallsBackAndComesBack() async throws {
        let bus = try await TestSessionBus()
        _ = try await ScriptedNotificationServer.start(on: bus.address)
        let recorder = Recorder()
        let (presenter, running) = Self.presenter(on: bus, recorder)
        defer { running.cancel() }
        await presenter.present(Self.presentation("before"))
        await bus.stop()
        await presenter.present(Self.presentation("during"))
        #expect(recorder.fallback.withLock { $0 }.map(\.identifier) == ["during"])
        try await bus.restart()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        // The run loop reconnects on its own: the next notification is a bubble again.
        guard await recorder.log.wait(until: { $0.filter { $0.hasPrefix("desktop notifications: ") }.count >= 2 }) else {
            Issue.record("no reconnection: \(recorder.log.value)")
            return
        }
        await presenter.present(Self.presentation("after"))
        let notification = try await server.waitForNotification()
        #expect(notification.replacesID == 0 && recorder.fallback.withLock { $0 }.count == 1)
        #expect(recorder.log.value.contains { $0.hasPrefix("desktop notifications lost") })
    }

    @Test func bubblesShownBeforeARestartStillAnswer() async throws {
        let directory = try TemporaryDirectory()
        let stateFile = directory.url.appendingPathComponent("desktop.json")
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let before = Recorder()
        let (first, firstRunning) = Self.presenter(on: bus, before, stateFile: stateFile)
        await first.present(Self.presentation(category: Self.orderCategory))
        _ = try await server.waitForNotification()
        firstRunning.cancel()
        await firstRunning.value  // a stopping presenter writes what it has not written yet

        let after = Recorder()
        let (second, secondRunning) = Self.presenter(on: bus, after, stateFile: stateFile)
        defer { secondRunning.cancel() }
        await second.present(Self.presentation("new"))  // connects, and maps the saved bubbles back
        _ = try await server.waitForNotification(2)
        try await server.invokeAction("cancel", on: 1)
        try await after.waitForEvents(1)
        #expect(
            after.events.value == [.action(Presentation.ID(bundleID: "com.example.shop", identifier: "order-42"), identifier: "cancel")])

        // Another server took the name: the saved bubbles were its predecessor's, and are forgotten.
        server.stop()
        let successor = try await ScriptedNotificationServer.start(on: bus.address)
        let third = Recorder()
        let (restarted, restartedRunning) = Self.presenter(on: bus, third, stateFile: stateFile)
        defer { restartedRunning.cancel() }
        await restarted.present(Self.presentation("newest"))
        _ = try await successor.waitForNotification()
        try await successor.invokeAction("track", on: 2)
        // A click on the successor's own bubble, after: once it is heard, the click on id 2 was handled and ignored.
        try await successor.invokeAction("default", on: 1)
        try await third.waitForEvents(1)
        #expect(third.events.value == [.opened(Presentation.ID(bundleID: "com.example.shop", identifier: "newest"))])
    }

    @Test func bubblesAreFoundBothWaysAndTheOldestGoBeyondTheLimit() {
        var bubbles = DesktopBubbles()
        let bubble = { (id: UInt32, identifier: String) in
            DesktopBubbles.Bubble(serverID: id, bundleID: "com.example.shop", identifier: identifier, reportsDismissal: false)
        }
        for id in 1...UInt32(DesktopBubbles.limit) { bubbles.insert(bubble(id, "n\(id)")) }
        #expect(bubbles[1]?.identifier == "n1")
        bubbles.insert(bubble(5000, "n2"))  // n2 replaced: its old bubble is gone
        #expect(bubbles[2] == nil && bubbles.serverID(of: .init(bundleID: "com.example.shop", identifier: "n2")) == 5000)
        bubbles.insert(bubble(5001, "new"))  // one over the limit: the oldest tenth goes
        #expect(bubbles[1] == nil && bubbles[101] == nil && bubbles[102] != nil && bubbles[5001] != nil)
        #expect(bubbles.serverID(of: .init(bundleID: "com.example.shop", identifier: "n1")) == nil)
    }
}
