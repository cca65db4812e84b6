import ArgumentParser
import Foundation
import HeraldClient
import HeraldDBus
import HeraldDesktopTesting
import HeraldTesting
import HeraldWire
import Testing

@testable import HeraldCLI

/// `herald device` presenting on a desktop: provider → gateway → daemon → `Notify` on a scripted notification
/// server on a test session bus → what the person does there → the app's delegate.
@Suite struct DesktopDaemonTests {
    private func start(_ bus: TestSessionBus, presenters: [String] = ["desktop"]) async throws -> DaemonFixture {
        let fixture = try await DaemonFixture.start(
            extraArguments: presenters.flatMap { ["--presenter", $0] }, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        let allowed = try await CommandRunTests.run(["device", "settings", "--app", DaemonFixture.app, "--allow", "--data-dir", fixture.data])
        #expect(allowed.status == 0, "\(allowed.error)")
        // The app runs once, setting its categories (MESSAGE: reply, open-app, archive; custom dismiss).
        #expect(try await fixture.startApp(["wait", "0"]).exitStatus() == 0)
        return fixture
    }

    /// sd-bus is loaded at run time: without libsystemd the desktop presenter says so in words, and the daemon goes on
    /// presenting on the others.
    @Test func withoutLibsystemdTheDesktopSaysSoAndTheOtherPresentersCarryOn() async throws {
        let bus = try await TestSessionBus()
        let fixture = try await DaemonFixture.start(
            extraArguments: ["--presenter", "desktop", "--presenter", "json"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "HERALD_LIBSYSTEMD": "/nonexistent/libsystemd.so.0"])
        let allowed = try await CommandRunTests.run(["device", "settings", "--app", DaemonFixture.app, "--allow", "--data-dir", fixture.data])
        #expect(allowed.status == 0, "\(allowed.error)")
        #expect(try await fixture.push(#"{"aps":{"alert":{"title":"Still here","body":"on the terminal"}}}"#).status == 200)
        let shown = await fixture.waitForEvent("notification")
        #expect(shown?["title"]?.stringValue == "Still here", "\(fixture.daemon.errorOutput)")
        #expect(
            await fixture.daemon.waitForErrorOutput(
                containing: "desktop notifications unavailable (cannot load /nonexistent/libsystemd.so.0, systemd's D-Bus library"),
            "\(fixture.daemon.errorOutput)")
        #expect(fixture.daemon.errorOutput.contains("apt install libsystemd0"))
        try await fixture.stop()
    }

    /// A Live Activity is one bubble on the desktop, replaced in place on each update (never a new bubble per
    /// update), with its progress for servers that draw it; an update with an alert sounds; dismissed, it closes.
    @Test func aLiveActivityIsOneBubbleReplacedInPlace() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let fixture = try await DaemonFixture.start(
            extraArguments: ["--presenter", "desktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], liveActivities: true)
        let pushToStart = try #require(
            await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }?["deviceToken"]?.stringValue)
        let now = DaemonLiveActivityTests.now
        let start =
            #""event":"start","timestamp":\#(now),"attributes-type":"DeliveryAttributes","attributes":{"name":"Order A-17"},"#
            + #""content-state":{"progress":0.25,"status":"packing"},"alert":"Order placed","input-push-token":1"#
        #expect(try await DaemonLiveActivityTests.push(fixture, start, to: pushToStart).status == 200)
        let first = try await server.waitForNotification()
        #expect(first.summary == "Order placed" && first.body.contains("status: packing") && first.body.contains("25%"), "\(first)")
        #expect(first.hints["value"] == .int32(25) && first.hints["sound-name"] != nil && first.expireTimeout == 0)
        let token = try #require(await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "activity" }?["deviceToken"]?.stringValue)

        // A quiet update replaces the bubble: the same id, no sound, the title back to the activity's.
        let update = #""event":"update","timestamp":\#(now + 1),"content-state":{"progress":0.75,"status":"on the way"}"#
        #expect(try await DaemonLiveActivityTests.push(fixture, update, to: token).status == 200)
        let second = try await server.waitForNotification(2)
        #expect(second.replacesID == first.id && second.summary == "Order A-17" && second.body.contains("on the way"), "\(second)")
        #expect(second.hints["value"] == .int32(75) && second.hints["suppress-sound"] == .boolean(true))

        // A restarted daemon draws the activity again in the same bubble, not in a new one.
        fixture.daemon.terminate()
        _ = await fixture.daemon.exitStatus()
        let restarted = try HeraldProcess.start(fixture.daemonArguments, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        defer { restarted.terminate() }
        let redrawn = try await server.waitForNotification(3)
        #expect(redrawn.replacesID == first.id && redrawn.body.contains("on the way"), "\(redrawn) \(restarted.errorOutput)")

        let end = #""event":"end","timestamp":\#(now + 2),"content-state":{"progress":1,"status":"delivered"},"dismissal-date":\#(now - 1)"#
        #expect(try await DaemonLiveActivityTests.push(fixture, end, to: token).status == 200)
        _ = try await server.waitForEvent { if case .close(let id) = $0 { id == first.id } else { false } }
        #expect(server.notifications.count == 4)  // start, update, redrawn after the restart, end: one bubble, replaced
        #expect(server.notifications.allSatisfy { $0.replacesID == 0 || $0.replacesID == first.id })
        restarted.terminate()
        _ = await restarted.exitStatus()
        try await fixture.stop()
    }

    /// With a widget extension the bubble is its view as text: the first label heads it (unless the change alerts),
    /// the others and its progress bar follow, and the bar is the `value` hint.
    @Test func aWidgetExtensionsViewIsTheBubblesText() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let fixture = try await DaemonFixture.start(
            extraArguments: ["--presenter", "desktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], liveActivities: true,
            widgetExtension: true)
        let pushToStart = try #require(
            await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }?["deviceToken"]?.stringValue)
        let now = DaemonLiveActivityTests.now
        let start =
            #""event":"start","timestamp":\#(now),"attributes-type":"DeliveryAttributes","attributes":{"orderID":"A-17"},"#
            + #""content-state":{"progress":0.25,"status":"packing"},"alert":"Order placed","input-push-token":1"#
        #expect(try await DaemonLiveActivityTests.push(fixture, start, to: pushToStart).status == 200)
        let first = try await server.waitForNotification()
        let lines = first.body.split(separator: "\n").map(String.init)
        #expect(first.summary == "Order placed" && lines.first == "Order A-17" && lines.dropFirst().first == "packing", "\(first)")
        #expect(lines.last == "▰▰▰▱▱▱▱▱▱▱ 25%" && first.hints["value"] == .int32(25), "\(first)")
        #expect(!first.body.contains("status:"), "the default view's fields are not drawn")
        let token = try #require(await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "activity" }?["deviceToken"]?.stringValue)

        let update = #""event":"update","timestamp":\#(now + 1),"content-state":{"progress":0.75,"status":"on the way"}"#
        #expect(try await DaemonLiveActivityTests.push(fixture, update, to: token).status == 200)
        let second = try await server.waitForNotification(2)
        #expect(second.replacesID == first.id && second.summary == "Order A-17" && second.body.hasPrefix("on the way\n"), "\(second)")
        #expect(second.hints["value"] == .int32(75))
        try await fixture.stop()
    }

    @Test func anInlineReplyOnTheDesktopReachesTheAppsDelegate() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let fixture = try await start(bus)
        let pushed = try await fixture.push(
            #"{"aps":{"alert":{"title":"Meet at 5?","body":"Bring <cake> & tea"},"category":"MESSAGE"}}"#, collapseID: "m1")
        #expect(pushed.status == 200)
        let bubble = try await server.waitForNotification()
        #expect(bubble.appName == "Test" && bubble.summary == "Meet at 5?" && bubble.body == "Bring &lt;cake&gt; &amp; tea")
        #expect(bubble.actions == ["default", "Open", "inline-reply", "Reply", "open-app", "Open", "archive", "Archive"])
        #expect(bubble.hints["x-kde-reply-placeholder-text"] == .string("Message"))
        #expect(bubble.hints["x-kde-reply-submit-button-text"] == .string("Send"))
        #expect(bubble.hints["sound-name"] == nil && bubble.hints["suppress-sound"] == .boolean(true))

        try await server.reply("On my way", to: bubble.id)
        let received = await fixture.waitForLaunchedAppEvent("didReceive")
        #expect(received?["action"]?.stringValue == "reply", "\(fixture.daemon.errorOutput)")
        #expect(received?["text"]?.stringValue == "On my way")
        #expect(received?["identifier"]?.stringValue == "m1")
        // Answered: the bubble is closed and the notification left the list.
        let events = try await server.waitForEvents(2)
        #expect(events.last == .close(bubble.id))
        #expect(try await fixture.respond(["m1"]).status != 0)
        try await fixture.stop()
    }

    /// The desktop's own do-not-disturb — KDE's `Inhibited`, dunst's `paused`, GNOME's `show-banners` off (a real
    /// `gsettings` on a keyfile backend) — turns on a Focus that follows it: silenced notifications get no bubble, an
    /// allowed app's do; off again, bubbles come back.
    @Test(arguments: ["kde", "dunst", "gnome"])
    func theDesktopsDoNotDisturbHoldsTheFocus(server kind: String) async throws {
        let bus = try await TestSessionBus()
        let settingsHome = CommandRunTests.temporaryDirectory()
        let gnome = ["GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": settingsHome]
        let server = try await ScriptedNotificationServer.start(
            on: bus.address, capabilities: ScriptedNotificationServer.everyCapability + (kind == "kde" ? ["inhibitions"] : []),
            serverName: ["kde": "Plasma", "dunst": "dunst", "gnome": "gnome-shell"][kind] ?? kind)
        let fixture = try await DaemonFixture.start(
            extraArguments: ["--presenter", "desktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address].merging(gnome) { a, _ in a })
        _ = try await CommandRunTests.run(["device", "settings", "--app", DaemonFixture.app, "--allow", "--data-dir", fixture.data])
        let doNotDisturb = { (on: Bool) in
            if kind == "gnome" {
                let set = try HeraldProcess.start(
                    ["set", "org.gnome.desktop.notifications", "show-banners", on ? "false" : "true"],
                    executable: URL(fileURLWithPath: "/usr/bin/gsettings"), environment: gnome)
                #expect(await set.exitStatus() == 0)
            } else {
                server.setDoNotDisturb(on)
            }
        }
        let focusLines = { fixture.daemon.output.split(separator: "\n").filter { $0.contains(#""event":"focus""#) } }

        #expect(try await fixture.push(#"{"aps":{"alert":"one"}}"#).status == 200)
        #expect(try await server.waitForNotification().body == "one")
        try await doNotDisturb(true)
        #expect(
            await fixture.daemon.waitForOutput { _ in focusLines().last?.contains(#""reason":"desktop""#) == true },
            "\(fixture.daemon.output)\(fixture.daemon.errorOutput)")
        #expect(try await fixture.push(#"{"aps":{"alert":"two"}}"#).status == 200)
        let allowed = try await CommandRunTests.run(["device", "focus", "--allow", DaemonFixture.app, "--data-dir", fixture.data])
        #expect(allowed.output.contains("Do Not Disturb: on (the desktop") == false, "the command line cannot see the desktop")
        #expect(try await fixture.push(#"{"aps":{"alert":"three"}}"#).status == 200)
        #expect(try await server.waitForNotification(2).body == "three", "two was silenced: \(server.notifications.map(\.body))")
        _ = try await CommandRunTests.run(["device", "focus", "--disallow", DaemonFixture.app, "--data-dir", fixture.data])

        try await doNotDisturb(false)
        #expect(await fixture.daemon.waitForOutput { _ in focusLines().last?.contains(#""on":false"#) == true }, "\(fixture.daemon.output)")
        #expect(try await fixture.push(#"{"aps":{"alert":"four"}}"#).status == 200)
        #expect(try await server.waitForNotification(3).body == "four")
        #expect(server.notifications.map(\.body) == ["one", "three", "four"])
        try await fixture.stop()
    }

    /// Provisional authorization (iOS 12): delivered quietly with Keep and Turn Off; keeping it prominently makes the
    /// next one a banner with a sound, without the choice; the choice is refused once made.
    @Test func aQuietNotificationOffersKeepAndTurnOff() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let fixture = try await DaemonFixture.start(
            extraArguments: ["--presenter", "desktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(try await fixture.startApp(["authorize-provisional", "wait", "0"]).exitStatus() == 0)
        #expect(try await fixture.push(#"{"aps":{"alert":"Try us","sound":"default"}}"#, collapseID: "quiet").status == 200)
        let quiet = try await server.waitForNotification()
        #expect(quiet.hints["urgency"] == .byte(0) && quiet.hints["suppress-sound"] == .boolean(true))
        #expect(quiet.label(of: "herald.deliver-prominently") == "Keep: Deliver Prominently", "\(quiet.actions)")
        #expect(quiet.label(of: "herald.deliver-quietly") == "Keep: Deliver Quietly" && quiet.label(of: "herald.turn-off") == "Turn Off")

        try await server.invokeAction("herald.deliver-prominently", on: quiet.id)
        let settings = ["device", "settings", "--app", DaemonFixture.app, "--data-dir", fixture.data, "--json"]
        var shown = try await CommandRunTests.run(settings)
        for _ in 0..<100 where !shown.output.contains(#""authorizationStatus":"authorized""#) {
            try await Task.sleep(for: .milliseconds(50))
            shown = try await CommandRunTests.run(settings)
        }
        #expect(shown.output.contains(#""authorizationStatus":"authorized""#) && shown.output.contains(#""alert":"on""#), "\(shown.output)")
        #expect(try await fixture.push(#"{"aps":{"alert":"Now loud","sound":"default"}}"#, collapseID: "loud").status == 200)
        let loud = try await server.waitForNotification(2)
        #expect(loud.hints["urgency"] == .byte(1) && loud.hints["sound-name"] == .string("message-new-instant"))
        #expect(loud.label(of: "herald.turn-off") == nil)
        let again = try await fixture.respond(["quiet", "--action", "herald.turn-off"])
        #expect(again.status != 0 && again.error.contains("is not delivered quietly any more"), "\(again.error)")
        try await fixture.stop()
    }

    @Test func aCollapseIDReplacesTheBubbleAndTheBadgeReachesTheLauncher() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let fixture = try await start(bus)
        #expect(try await fixture.push(#"{"aps":{"alert":"1 : 0","sound":"default"}}"#, collapseID: "score").status == 200)
        let first = try await server.waitForNotification()
        #expect(first.hints["sound-name"] == .string("message-new-instant"))
        #expect(try await fixture.push(#"{"aps":{"alert":"2 : 0","badge":5}}"#, collapseID: "score").status == 200)
        let second = try await server.waitForNotification(2)
        #expect(second.replacesID == first.id && second.id == first.id && second.body == "2 : 0")
        try await server.waitForEvent { if case .launcherUpdate = $0 { true } else { false } }
        #expect(
            server.events.contains(
                .launcherUpdate(
                    appURI: "application://\(DaemonFixture.app).desktop", properties: ["count": .int64(5), "count-visible": .boolean(true)])),
            "\(server.events)")
        // A person clicking the bubble opens it: the app hears the default action.
        try await server.invokeAction("default", on: second.id)
        let received = await fixture.waitForLaunchedAppEvent("didReceive")
        #expect(received?["action"]?.stringValue == "com.apple.UNNotificationDefaultActionIdentifier", "\(fixture.daemon.errorOutput)")
        try await fixture.stop()
    }

    @Test func aDismissalOnTheDesktopReachesTheAppForCustomDismissCategories() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let fixture = try await start(bus)
        try await fixture.push(#"{"aps":{"alert":"custom","category":"MESSAGE"}}"#, collapseID: "c1")
        let bubble = try await server.waitForNotification()
        // Expired: no dismissal, still listed. The server's signals arrive in order, so when the app hears of the
        // second bubble's dismissal (below) the first one's expiry was handled: had it been taken for a dismissal,
        // the first didReceive would be c1's.
        try await server.close(bubble.id, reason: 1)
        try await fixture.push(#"{"aps":{"alert":"again","category":"MESSAGE"}}"#, collapseID: "c2")
        let second = try await server.waitForNotification(2)
        try await server.close(second.id, reason: 2)
        let received = await fixture.waitForLaunchedAppEvent("didReceive")
        #expect(received?["action"]?.stringValue == "com.apple.UNNotificationDismissActionIdentifier", "\(fixture.daemon.errorOutput)")
        #expect(received?["identifier"]?.stringValue == "c2")
        try await fixture.stop()
    }

    /// The bus dies mid-run: the next notification is a card on the terminal, the one after (the bus back) a bubble
    /// again, and none is shown twice.
    @Test func aBusThatDiesLosesNoNotification() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let fixture = try await start(bus)
        try await fixture.push(#"{"aps":{"alert":"before"}}"#, collapseID: "before")
        _ = try await server.waitForNotification()
        await bus.stop()
        #expect(try await fixture.push(#"{"aps":{"alert":"during"}}"#, collapseID: "during").status == 200)
        #expect(await fixture.daemon.waitForOutput(containing: "│ during"), "\(fixture.daemon.output)\(fixture.daemon.errorOutput)")
        #expect(fixture.daemon.errorOutput.contains("desktop notifications lost"), "\(fixture.daemon.errorOutput)")
        try await bus.restart()
        let back = try await ScriptedNotificationServer.start(on: bus.address)
        // Reconnected (the daemon tries every 2 s): said a second time.
        let deadline = ContinuousClock.now + .seconds(10)
        while fixture.daemon.errorOutput.components(separatedBy: "desktop notifications: herald-scripted").count - 1 < 2 {
            guard ContinuousClock.now < deadline else {
                Issue.record("no reconnection: \(fixture.daemon.errorOutput)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await fixture.push(#"{"aps":{"alert":"after"}}"#, collapseID: "after")
        let after = try await back.waitForNotification()
        #expect(after.body == "after")
        // One more, after: once it is up, nothing before it can still come twice.
        try await fixture.push(#"{"aps":{"alert":"last"}}"#, collapseID: "last")
        _ = try await back.waitForNotification(2)
        #expect(back.notifications.map(\.body) == ["after", "last"] && server.notifications.count == 1)
        #expect(fixture.daemon.output.components(separatedBy: "│ during").count - 1 == 1)
        try await fixture.stop()
    }

    @Test func withoutASessionBusTheDesktopFallsBackToTheTerminal() async throws {
        let fixture = try await DaemonFixture.start(
            extraArguments: ["--presenter", "desktop"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        let allowed = try await CommandRunTests.run(["device", "settings", "--app", DaemonFixture.app, "--allow", "--data-dir", fixture.data])
        #expect(allowed.status == 0)
        try await fixture.push(#"{"aps":{"alert":"no desktop here"}}"#)
        #expect(await fixture.daemon.waitForOutput(containing: "│ no desktop here"), "\(fixture.daemon.output)\(fixture.daemon.errorOutput)")
        #expect(fixture.daemon.errorOutput.contains("desktop notifications unavailable (cannot reach the D-Bus session bus"))
        try await fixture.stop()
    }

    @Test func presentersComeFromTheFlagsTheEnvironmentOrTheBus() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let wrong = try await CommandRunTests.run(["device", "--data-dir", data], environment: ["HERALD_PRESENTER": "desktop,bubbles"])
        #expect(wrong.status != 0 && wrong.error.contains("HERALD_PRESENTER=desktop,bubbles: each name must be desktop, terminal, json or none"))
        let badFlag = try await CommandRunTests.run(["device", "--data-dir", data, "--presenter", "bubbles"])
        #expect(badFlag.status != 0 && badFlag.error.contains("one of 'desktop', 'terminal', 'json' or 'none'"), "\(badFlag.error)")
    }
}

/// Which presenters `herald device` picks when none is named.
@Suite struct PresenterChoiceTests {
    private func choices(_ arguments: [String], _ environment: [String: String]) throws -> [PresenterChoice] {
        try Device.Run.parse(arguments).choices(environment: environment)
    }

    @Test func theDefaultIsTheDesktopWhenASessionBusIsKnown() throws {
        let bus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"]
        #expect(try choices([], bus) == [.desktop])
        #expect(try choices([], [:]) == [.terminal])
        #expect(try choices(["--json"], bus) == [.json])
        #expect(try choices([], bus.merging(["HERALD_PRESENTER": "terminal, json"]) { a, _ in a }) == [.terminal, .json])
        #expect(
            try choices(["--presenter", "json", "--presenter", "desktop", "--presenter", "json"], ["HERALD_PRESENTER": "none"]) == [.json, .desktop])
        #expect(throws: (any Error).self) { try choices(["--presenter", "none", "--presenter", "desktop"], [:]) }
    }
}
