import Foundation
import GRDB
import HeraldClient
import HeraldDevice
import HeraldSpawn
import HeraldWire
import Testing
import UserNotifications

/// Service extensions run by the device daemon, and a daemon killed in the middle of one.
@Suite(.serialized) struct DaemonExtensionTests {
    private func allow(_ fixture: DaemonFixture) async throws {
        let allowed = try await CommandRunTests.run(["device", "settings", "--app", DaemonFixture.app, "--allow", "--data-dir", fixture.data])
        #expect(allowed.status == 0, "\(allowed.error)")
    }

    @Test func theServiceExtensionRewritesAndAHangingOneIsCutOffWithTheOriginalShown() async throws {
        let fixture = try await DaemonFixture.start(serviceExtension: true, budget: 1)
        try await allow(fixture)
        let modified = try await fixture.push(#"{"aps":{"alert":{"title":"Episode 12"},"mutable-content":1},"mode":"modify"}"#)
        let shown = await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == modified.apnsID }
        #expect(shown?["title"]?.stringValue == "Modified: Episode 12", "\(fixture.daemon.errorOutput)")

        // Without mutable-content the extension does not run.
        let plain = try await fixture.push(#"{"aps":{"alert":{"title":"As sent"}},"mode":"modify"}"#)
        #expect(await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == plain.apnsID }?["title"]?.stringValue == "As sent")

        let hanging = try await fixture.push(#"{"aps":{"alert":{"title":"Original"},"mutable-content":1},"mode":"hang"}"#)
        let original = await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == hanging.apnsID }
        #expect(original?["title"]?.stringValue == "Original")
        let outcome = fixture.events("serviceExtension").first { $0["apnsID"]?.stringValue == hanging.apnsID }
        #expect(outcome?["outcome"]?.stringValue?.contains("original") == true, "\(String(describing: outcome))")

        let stripped = try await fixture.push(#"{"aps":{"alert":{"title":"Keep me"},"mutable-content":1},"mode":"removeAlert"}"#)
        #expect(await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == stripped.apnsID }?["title"]?.stringValue == "Keep me")
        try await fixture.stop()
    }

    /// A notification whose presentation fails (here: another process holds the daemon's database while the
    /// extension runs) stays in the inbox and is tried again by itself, with the wait said in the log.
    @Test func aNotificationThatCannotBePresentedIsTriedAgain() async throws {
        let fixture = try await DaemonFixture.start(serviceExtension: true, budget: 1)
        try await allow(fixture)
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let database = try DatabaseQueue(path: fixture.data + "/notifications.sqlite", configuration: configuration)
        let pushed = try await fixture.push(#"{"aps":{"alert":{"title":"Held"},"mutable-content":1},"mode":"expire"}"#)
        // Once it is in the inbox (its extension running for a second), the database is held.
        let deadline = ContinuousClock.now + .seconds(10)
        while try await database.read({ try Int.fetchOne($0, sql: "SELECT count(*) FROM inbox WHERE done = 0") }) == 0,
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await database.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
        #expect(await fixture.daemon.waitForErrorOutput(containing: "it stays in the inbox, trying again in"), "\(fixture.daemon.errorOutput)")
        #expect(!fixture.events("notification").contains { $0["apnsID"]?.stringValue == pushed.apnsID })
        try await database.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }

        let shown = await fixture.waitForEvent("notification") { $0["apnsID"]?.stringValue == pushed.apnsID }
        #expect(shown?["title"]?.stringValue == "Best attempt", "\(fixture.daemon.errorOutput)")
        try await fixture.stop()
    }

    @Test func aDaemonKilledDuringAnExtensionPresentsAfterItsRestartAndKeepsPendingRequests() async throws {
        let fixture = try await DaemonFixture.start(serviceExtension: true, budget: 30)
        try await allow(fixture)
        let scheduler = try fixture.startApp(["schedule", "tomorrow", "86400", "wait", "0"])
        #expect(await scheduler.waitForEvent("scheduled") != nil, "\(scheduler.output)\(scheduler.errorOutput)")
        _ = await scheduler.exitStatus()

        let pushed = try await fixture.push(#"{"aps":{"alert":{"title":"Survivor"},"mutable-content":1},"mode":"hang"}"#)
        #expect(pushed.status == 200)
        try await Task.sleep(for: .milliseconds(700))
        fixture.daemon.process.send(SIGKILL)
        _ = await fixture.daemon.exitStatus()
        #expect(!fixture.events("notification").contains { $0["apnsID"]?.stringValue == pushed.apnsID })

        var arguments = fixture.daemonArguments
        arguments[arguments.firstIndex(of: "--extension-budget")! + 1] = "1"
        let restarted = try HeraldProcess.start(arguments)
        defer { restarted.terminate() }
        let shown = await restarted.waitForEvent("notification") { $0["apnsID"]?.stringValue == pushed.apnsID }
        #expect(shown?["title"]?.stringValue == "Survivor", "\(restarted.output)\(restarted.errorOutput)")

        let pending = try fixture.startApp(["pending", "wait", "0"])
        #expect(await pending.waitForEvent("pending")?["identifiers"] == .array([.string("tomorrow")]), "\(pending.output)")
        restarted.terminate()
        _ = await restarted.exitStatus()
        try await fixture.stop()
    }
}
