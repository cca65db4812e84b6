import Foundation
import HeraldClient
import HeraldWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An app's widget extension drawing its Live Activities on a real daemon (`herald device --json`) linked to a real
/// gateway: one process draws every change (start, update, stale, end) and is closed with the app's last activity;
/// an extension that crashes, hangs or draws another type leaves the default view and the daemon says why.
@Suite(.serialized) struct DaemonWidgetExtensionTests {
    typealias Push = DaemonLiveActivityTests

    /// The widget's view in an `activity` event, as its lines.
    static func view(_ event: JSONValue?) -> [String]? {
        guard case .array(let lines)? = event?["view"] else { return nil }
        return lines.compactMap(\.stringValue)
    }

    /// The pid the test widget draws into its view.
    static func pid(_ lines: [String]?) -> Int32? {
        lines?.first { $0.hasPrefix("pid ") }.flatMap { Int32($0.dropFirst(4)) }
    }

    static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0
    }

    @Test func oneWidgetProcessDrawsEveryChangeAndEndsWithTheLastActivity() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: true, widgetExtension: true)
        let pushToStart = try #require(
            await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }?["deviceToken"]?.stringValue)
        let first = Push.now
        #expect(try await Push.push(fixture, Push.start(timestamp: first, extra: #","input-push-token":1"#), to: pushToStart).status == 200)
        let started = await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "started" }
        let startView = try #require(Self.view(started), "\(fixture.daemon.output) \(fixture.daemon.errorOutput)")
        #expect(startView.first == "Order A-17" && startView.contains("packing") && startView.last == "[progress 10%]")
        let pid = try #require(Self.pid(startView))
        let activityID = try #require(started?["activityID"]?.stringValue)
        let token = try #require(
            await fixture.waitForEvent("registered") { $0["activityID"]?.stringValue == activityID }?["deviceToken"]?.stringValue)

        // An update, then one that goes stale a second later: redrawn by the same process each time.
        let update = #""event":"update","timestamp":\#(first + 1),"content-state":{"progress":0.6,"status":"on the way"}"#
        #expect(try await Push.push(fixture, update, to: token).status == 200)
        let updated = Self.view(await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "updated" })
        #expect(updated?.contains("on the way") == true && updated?.last == "[progress 60%]" && Self.pid(updated) == pid)
        let staling = #""event":"update","timestamp":\#(first + 2),"content-state":{"progress":0.7,"status":"stuck"},"stale-date":\#(Push.now + 1)"#
        #expect(try await Push.push(fixture, staling, to: token).status == 200)
        let stale = Self.view(await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "stale" })
        #expect(stale?.contains("stuck (stale)") == true && Self.pid(stale) == pid, "\(fixture.daemon.output)")

        // The end draws once more; the dismissal closes the process (the app shows no other activity).
        let end = #""event":"end","timestamp":\#(first + 3),"content-state":{"progress":1,"status":"delivered"},"dismissal-date":\#(Push.now + 4)"#
        #expect(try await Push.push(fixture, end, to: token).status == 200)
        let ended = Self.view(await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "ended" })
        #expect(ended?.contains("delivered") == true && ended?.last == "[progress 100%]" && Self.pid(ended) == pid)
        #expect(Self.isRunning(pid), "the ended activity is still shown (until its dismissal date, 4 s on)")
        let dismissed = await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "dismissed" }
        #expect(dismissed != nil && dismissed?["view"] == nil)
        var closed = false
        for _ in 0..<50 where !closed {
            closed = !Self.isRunning(pid)
            if !closed { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(closed, "the widget extension \(pid) still runs after the app's last activity was dismissed")
        #expect(!fixture.daemon.errorOutput.contains("widget"), "\(fixture.daemon.errorOutput)")
        try await fixture.stop()
    }

    @Test func aWidgetThatCrashesHangsOrDeclinesLeavesTheDefaultViewAndTheDaemonSaysWhy() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: true, widgetExtension: true)
        let pushToStart = try #require(
            await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }?["deviceToken"]?.stringValue)
        let first = Push.now
        let crash =
            #""event":"start","timestamp":\#(first),"attributes-type":"DeliveryAttributes","attributes":{"orderID":"C-1"},"#
            + #""content-state":{"progress":0.1,"status":"crash"},"alert":{"title":"Order C-1","body":"Packing"},"input-push-token":1"#
        #expect(try await Push.push(fixture, crash, to: pushToStart).status == 200)
        let started = await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "started" }
        #expect(started != nil && started?["view"] == nil, "\(fixture.daemon.output)")
        let activityID = try #require(started?["activityID"]?.stringValue)
        #expect(await fixture.daemon.waitForErrorOutput(containing: "could not draw activity \(activityID)"))
        #expect(fixture.daemon.errorOutput.contains("before it drew activity \(activityID)"), "\(fixture.daemon.errorOutput)")
        #expect(fixture.daemon.errorOutput.contains("crashing as the status asks"), "its log is in the reason")

        // A hang past the budget: killed, the default view; the next change starts a new process that draws.
        let token = try #require(
            await fixture.waitForEvent("registered") { $0["activityID"]?.stringValue == activityID }?["deviceToken"]?.stringValue)
        let hang = #""event":"update","timestamp":\#(first + 1),"content-state":{"progress":0.3,"status":"hang"}"#
        #expect(try await Push.push(fixture, hang, to: token).status == 200)
        let hung = await fixture.waitForEvent("activity") { $0["state"]?["status"]?.stringValue == "hang" }
        #expect(hung != nil && hung?["view"] == nil)
        #expect(fixture.daemon.errorOutput.contains("drew nothing for activity \(activityID) within"), "\(fixture.daemon.errorOutput)")
        let fine = #""event":"update","timestamp":\#(first + 2),"content-state":{"progress":0.5,"status":"fine"}"#
        #expect(try await Push.push(fixture, fine, to: token).status == 200)
        let drawn = Self.view(await fixture.waitForEvent("activity") { $0["state"]?["status"]?.stringValue == "fine" })
        #expect(drawn?.contains("fine") == true && Self.pid(drawn) != nil, "\(fixture.daemon.errorOutput)")

        // An activity of a type the widget does not draw.
        let parcel =
            #""event":"start","timestamp":\#(first + 3),"attributes-type":"ParcelAttributes","attributes":{"orderID":"P-1"},"#
            + #""content-state":{"progress":0.1,"status":"fine"},"alert":{"title":"Parcel","body":"On its way"}"#
        #expect(try await Push.push(fixture, parcel, to: pushToStart).status == 200)
        let other = await fixture.waitForEvent("activity") { $0["attributesType"]?.stringValue == "ParcelAttributes" }
        #expect(other != nil && other?["view"] == nil)
        #expect(
            await fixture.daemon.waitForErrorOutput(containing: "this widget draws DeliveryAttributes activities, not ParcelAttributes"),
            "\(fixture.daemon.errorOutput)")
        try await fixture.stop()
    }
}
