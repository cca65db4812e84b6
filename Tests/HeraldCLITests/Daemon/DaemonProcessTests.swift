import Foundation
import HeraldClient
import HeraldWire
import Testing

/// The device daemon end to end: a live gateway, `herald device` as the daemon, installed test apps as processes.
@Suite(.serialized) struct DaemonProcessTests {
    private func allow(_ fixture: DaemonFixture, _ app: String = DaemonFixture.app) async throws {
        let allowed = try await CommandRunTests.run(["device", "settings", "--app", app, "--allow", "--data-dir", fixture.data])
        #expect(allowed.status == 0, "\(allowed.error)")
    }

    @Test func aRemoteNotificationReachesAnAppThatIsNotRunningAndACollapseIDReplacesIt() async throws {
        let fixture = try await DaemonFixture.start()
        try await allow(fixture)
        let first = try await fixture.push(#"{"aps":{"alert":{"title":"First","body":"one"},"badge":4},"orderID":7}"#, collapseID: "order-7")
        #expect(first.status == 200)
        let shown = await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == first.apnsID }
        #expect(shown?["identifier"]?.stringValue == "order-7")
        #expect(shown?["title"]?.stringValue == "First")
        #expect(shown?["userInfo"]?["orderID"] == .integer(7))
        let second = try await fixture.push(#"{"aps":{"alert":{"title":"Second","body":"two"}}}"#, collapseID: "order-7")
        #expect(await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == second.apnsID } != nil)

        // The app sees one notification under the collapse id, with the newer content; the payload's badge is the app's.
        let app = try fixture.startApp(["delivered", "wait", "0"])
        let delivered = await app.waitForEvent("delivered")
        #expect(delivered?["identifiers"] == .array([.string("order-7")]), "\(app.errorOutput)")
        #expect(delivered?["titles"] == .array([.string("Second")]))
        let settings = try await CommandRunTests.run(["device", "settings", "--app", DaemonFixture.app, "--json", "--data-dir", fixture.data])
        #expect(settings.output.contains(#""badgeCount":4"#), "\(settings.output)")

        // The app removes it from the list.
        let remover = try fixture.startApp(["remove", "order-7", "delivered", "wait", "0"])
        #expect(await remover.waitForEvent("delivered")?["identifiers"] == .array([]), "\(remover.output)")
        try await fixture.stop()
    }

    @Test func aNotificationForADeniedOrUndecidedAppIsNotShown() async throws {
        let fixture = try await DaemonFixture.start()
        let undecided = try await fixture.push(#"{"aps":{"alert":"nobody asked"}}"#)
        #expect(undecided.status == 200)
        try await allow(fixture)
        let allowed = try await fixture.push(#"{"aps":{"alert":"now allowed"}}"#)
        #expect(await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == allowed.apnsID } != nil)
        #expect(!fixture.events("notification").contains { $0["apnsID"]?.stringValue == undecided.apnsID })
        try await fixture.stop()
    }

    @Test func theRunningAppsDelegateDecidesHowToPresent() async throws {
        let fixture = try await DaemonFixture.start()
        try await allow(fixture)
        let app = try fixture.startApp(["wait", "30"], environment: ["HERALD_TEST_PRESENT": "none"])
        defer { app.terminate() }
        #expect(await app.waitForEvent("ready") != nil, "\(app.errorOutput)")
        let quiet = try await fixture.push(#"{"aps":{"alert":{"title":"In front"}}}"#, collapseID: "quiet")
        #expect(quiet.status == 200)
        #expect(await app.waitForEvent("willPresent") { $0["identifier"]?.stringValue == "quiet" }?["title"]?.stringValue == "In front")
        // The daemon asks about one notification at a time: once the app is asked about the next, its answer about
        // "quiet" ([]) is in (the app prints its event before it answers, and dies at once on SIGTERM).
        #expect(try await fixture.push(#"{"aps":{"alert":{"title":"Next"}}}"#, collapseID: "next").status == 200)
        #expect(await app.waitForEvent("willPresent") { $0["identifier"]?.stringValue == "next" } != nil)
        // Answered []: not shown. A later push shows up, so the daemon did not just lag behind.
        app.terminate()
        _ = await app.exitStatus()
        let later = try await fixture.push(#"{"aps":{"alert":{"title":"App gone"}}}"#, collapseID: "later")
        #expect(await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == later.apnsID } != nil)
        #expect(!fixture.events("notification").contains { $0["identifier"]?.stringValue == "quiet" })
        try await fixture.stop()
    }

    @Test func responsesReachTheRunningAppsDelegateAndBadResponsesAreRefused() async throws {
        let fixture = try await DaemonFixture.start()
        try await allow(fixture)
        let app = try fixture.startApp(["add", "m1", "wait", "30"])
        defer { app.terminate() }
        #expect(await app.waitForEvent("added") != nil, "\(app.errorOutput)")
        #expect(await fixture.waitForEvent("notification") { $0["identifier"]?.stringValue == "m1" } != nil)

        let unknown = try await fixture.respond(["m1", "--action", "forward"])
        #expect(unknown.status != 0)
        #expect(unknown.error.contains("reply, open-app, archive, open, dismiss"), "\(unknown.error)")
        let textless = try await fixture.respond(["m1", "--action", "reply"])
        #expect(textless.status != 0 && textless.error.contains("--text"), "\(textless.error)")
        let stray = try await fixture.respond(["m1", "--action", "archive", "--text", "hm"])
        #expect(stray.status != 0 && stray.error.contains("takes no text"), "\(stray.error)")
        let missing = try await fixture.respond(["nothing-here"])
        #expect(missing.status != 0 && missing.error.contains("no delivered notification"), "\(missing.error)")

        let replied = try await fixture.respond(["m1", "--action", "reply", "--text", "On my way", "--json"])
        #expect(replied.status == 0, "\(replied.error)")
        #expect(replied.output.contains("delivered to the running app"), "\(replied.output)")
        let received = await app.waitForEvent("didReceive")
        #expect(received?["action"]?.stringValue == "reply")
        #expect(received?["text"]?.stringValue == "On my way")
        #expect(received?["identifier"]?.stringValue == "m1")
        // Answered: it left the list.
        let again = try await fixture.respond(["m1"])
        #expect(again.status != 0)
        try await fixture.stop()
    }

    @Test func aResponseLaunchesAnAppThatIsNotRunning() async throws {
        let fixture = try await DaemonFixture.start()
        try await allow(fixture)
        // The app runs once, setting its categories, and ends.
        #expect(try await fixture.startApp(["wait", "0"]).exitStatus() == 0)
        let pushed = try await fixture.push(#"{"aps":{"alert":{"title":"Meet at 5?"},"category":"MESSAGE"}}"#, collapseID: "m2")
        #expect(pushed.status == 200)
        #expect(await fixture.waitForEvent("notification") { $0["identifier"]?.stringValue == "m2" } != nil)
        let opened = try await fixture.respond(["m2", "--action", "open-app"])
        #expect(opened.status == 0, "\(opened.error)")
        #expect(opened.output.contains("launched the app"), "\(opened.output)")
        let received = await fixture.waitForLaunchedAppEvent("didReceive")
        #expect(fixture.launchedAppLines().first { $0["event"]?.stringValue == "started" }?["launchReason"]?.stringValue == "response")
        #expect(received?["action"]?.stringValue == "open-app")
        #expect(received?["title"]?.stringValue == "Meet at 5?")

        // SIGTERM stops the daemon cleanly: the app it launched stops too and the socket goes.
        let pid = try #require(fixture.events("launched").first?["pid"]?.integerValue)
        fixture.daemon.terminate()
        #expect(await fixture.daemon.exitStatus() == 0, "\(fixture.daemon.errorOutput)")
        var appGone = false
        for _ in 0..<250 where !appGone {
            appGone = kill(pid_t(pid), 0) != 0
            if !appGone { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(appGone)
        #expect(!FileManager.default.fileExists(atPath: fixture.data + "/device/daemon.sock"))
        try await fixture.stop()
    }

    @Test func aDismissalReachesTheAppOnlyForCustomDismissCategories() async throws {
        let fixture = try await DaemonFixture.start()
        try await allow(fixture)
        #expect(try await fixture.startApp(["wait", "0"]).exitStatus() == 0)
        try await fixture.push(#"{"aps":{"alert":"plain","category":"PLAIN"}}"#, collapseID: "p1")
        #expect(await fixture.waitForEvent("notification") { $0["identifier"]?.stringValue == "p1" } != nil)
        let dismissed = try await fixture.respond(["p1", "--action", "dismiss"])
        #expect(dismissed.status == 0 && dismissed.output.contains("the app is not told"), "\(dismissed.output)\(dismissed.error)")

        try await fixture.push(#"{"aps":{"alert":"custom","category":"MESSAGE"}}"#, collapseID: "c1")
        #expect(await fixture.waitForEvent("notification") { $0["identifier"]?.stringValue == "c1" } != nil)
        let told = try await fixture.respond(["c1", "--action", "dismiss"])
        #expect(told.status == 0 && told.output.contains("launched the app"), "\(told.output)\(told.error)")
        let received = await fixture.waitForLaunchedAppEvent("didReceive")
        #expect(received?["action"]?.stringValue == "com.apple.UNNotificationDismissActionIdentifier")
        #expect(received?["identifier"]?.stringValue == "c1")
        try await fixture.stop()
    }

    @Test func aBackgroundPushWakesTheAppWithoutPresenting() async throws {
        let fixture = try await DaemonFixture.start()
        try await allow(fixture)
        let pushed = try await fixture.push(#"{"aps":{"content-available":1},"sync":"inbox"}"#, background: true)
        #expect(pushed.status == 200)
        #expect(await fixture.waitForEvent("background") { $0["apnsID"]?.stringValue == pushed.apnsID } != nil)
        let woken = await fixture.waitForLaunchedAppEvent("background")
        #expect(woken?["userInfo"]?["sync"]?.stringValue == "inbox")
        #expect(fixture.events("notification").isEmpty)
        try await fixture.stop()
    }

    /// While a daemon runs it answers every app's question; the app's HERALD_AUTHORIZATION does not count. With
    /// nobody to ask at the daemon, the app and the daemon's log both say where the question went and how to answer.
    @Test func anAuthorizationNobodyCanAnswerSaysWhereItWentAndHowToAnswer() async throws {
        let fixture = try await DaemonFixture.start()
        let app = try fixture.startApp(["authorize", "wait", "0"], environment: ["HERALD_AUTHORIZATION": "grant"])
        let failed = await app.waitForEvent("authorizationFailed")
        let error = failed?["error"]?.stringValue ?? ""
        #expect(error.contains("went to the device daemon (`herald device`)"), "\(app.output)\(app.errorOutput)")
        #expect(error.contains("the app's does not count"), "\(error)")
        #expect(error.contains("herald device settings --app \(DaemonFixture.app) --allow"), "\(error)")
        #expect(
            await fixture.daemon.waitForErrorOutput(containing: "herald device settings --app \(DaemonFixture.app) --allow"),
            "\(fixture.daemon.errorOutput)")

        let allowed = try await CommandRunTests.run(["device", "settings", "--app", DaemonFixture.app, "--allow", "--data-dir", fixture.data])
        #expect(allowed.status == 0, "\(allowed.error)")
        let again = try fixture.startApp(["authorize", "wait", "0"])
        #expect(await again.waitForEvent("authorized")?["granted"] == .bool(true), "\(again.output)")
        try await fixture.stop()
    }

    @Test func theAppRegistersForRemoteNotificationsAndGetsTheDaemonsToken() async throws {
        let fixture = try await DaemonFixture.start()
        let app = try fixture.startApp(["register", "wait", "0"])
        let token = await app.waitForEvent("token")
        #expect(token?["token"]?.stringValue == (try fixture.token()), "\(app.output)\(app.errorOutput)")
        try await fixture.stop()

        // Without a daemon the app runs in-process and is told how to get one.
        let alone = try fixture.startApp(["register", "wait", "0"])
        let failed = await alone.waitForEvent("registrationFailed")
        #expect(failed?["error"]?.stringValue?.contains("herald device --gateway") == true, "\(alone.output)")
    }

    @Test func anAppSeesOnlyItsOwnNotificationsAndCannotAnswerAnothers() async throws {
        let fixture = try await DaemonFixture.start()
        try await allow(fixture)
        try await allow(fixture, DaemonFixture.otherApp)
        let owner = try fixture.startApp(["add", "secret", "wait", "0"])
        #expect(await owner.waitForEvent("added") != nil, "\(owner.errorOutput)")
        #expect(await owner.exitStatus() == 0)

        // The other app's executable, claiming the first app's bundle id, still acts as itself.
        let other = try HeraldProcess.start(
            ["delivered", "steal", "secret", "wait", "0"],
            executable: URL(fileURLWithPath: fixture.data + "/bundles/\(DaemonFixture.otherApp).app/herald-test-app"),
            environment: ["HERALD_DATA_DIR": fixture.data, "HERALD_BUNDLE_ID": DaemonFixture.app]
        )
        #expect(await other.waitForEvent("delivered")?["identifiers"] == .array([]), "\(other.output)\(other.errorOutput)")
        #expect(await other.waitForEvent("stealRefused")?["error"]?.stringValue?.contains("cannot respond") == true, "\(other.output)")

        // A program that is not installed gets nothing.
        let rogue = fixture.data + "/rogue"
        try FileManager.default.copyItem(atPath: HeraldProcess.built("herald-test-app").path, toPath: rogue)
        let refused = try HeraldProcess.start(
            ["add", "x", "wait", "0"], executable: URL(fileURLWithPath: rogue), environment: ["HERALD_DATA_DIR": fixture.data])
        #expect(await refused.waitForEvent("addFailed")?["error"]?.stringValue?.contains("not an installed app") == true, "\(refused.output)")

        let still = try fixture.startApp(["delivered", "wait", "0"])
        #expect(await still.waitForEvent("delivered")?["identifiers"] == .array([.string("secret")]))
        try await fixture.stop()
    }

    @Test func localizedAlertKeysComeFromTheAppsStrings() async throws {
        let fixture = try await DaemonFixture.start(strings: ["EPISODE": "New episode with %@"])
        try await allow(fixture)
        let pushed = try await fixture.push(#"{"aps":{"alert":{"title-loc-key":"EPISODE","title-loc-args":["Ada"],"loc-key":"MISSING_KEY"}}}"#)
        let shown = await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == pushed.apnsID }
        #expect(shown?["title"]?.stringValue == "New episode with Ada")
        #expect(shown?["body"]?.stringValue == "MISSING_KEY")
        try await fixture.stop()
    }

    /// `providesAppNotificationSettings` (iOS 12): the person asks for the app's own settings, from Settings or from a
    /// notification; the app (launched) hears `openSettingsFor` with that notification, or nil. An app that never said
    /// it has such a screen is refused.
    @Test func theAppsOwnSettingsOpenThroughItsDelegate() async throws {
        let fixture = try await DaemonFixture.start(environment: ["HERALD_AUTHORIZATION": "grant"])
        let open = ["device", "settings", "--app", DaemonFixture.app, "--open-app-settings", "--data-dir", fixture.data]
        let refused = try await CommandRunTests.run([
            "device", "settings", "--app", "com.example.plain", "--open-app-settings", "--data-dir", fixture.data,
        ])
        #expect(refused.status != 0 && refused.error.contains("has no notification settings of its own"), "\(refused.error)")
        #expect(try await fixture.startApp(["authorize-settings", "wait", "0"]).exitStatus() == 0)
        #expect(try await fixture.push(#"{"aps":{"alert":"Hello"}}"#, collapseID: "hello").status == 200)
        #expect(await fixture.waitForEvent("notification") != nil)
        let fromNotification = try await CommandRunTests.run(open + ["--from-notification", "hello"])
        #expect(fromNotification.status == 0, "\(fromNotification.error)")
        let asked = await fixture.waitForLaunchedAppEvent("openSettings")
        #expect(asked?["identifier"]?.stringValue == "hello", "\(fixture.daemon.errorOutput)")
        try await fixture.stop()
    }
}
