import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// Live Activities on a real device daemon (`herald device --json`) linked to a real gateway: push-to-start, updates
/// by the activity's own token and by a broadcast channel, the order of timestamps, the end and dismissal, the token's
/// retirement, and a daemon restart in the middle.
@Suite(.serialized) struct DaemonLiveActivityTests {
    static let topic = DaemonFixture.app + ".push-type.liveactivity"

    /// A `liveactivity` push of `aps` (the inside of the `aps` dictionary) to `token`.
    @discardableResult
    static func push(
        _ fixture: DaemonFixture, _ aps: String, to token: String, pushType: PushType = .liveActivity, priority: Int? = nil
    ) async throws -> APNsResponse {
        let connection = try await fixture.gateway.connect()
        let headers = APNsConnection.notificationHeaders(
            token: token, topic: pushType == .liveActivity ? topic : DaemonFixture.app, jwt: fixture.gateway.defaultJWT, pushType: pushType,
            priority: priority)
        let response = try await connection.send(headers: headers, body: Data(#"{"aps":{\#(aps)}}"#.utf8))
        await connection.close()
        return response
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    static func start(timestamp: Int, extra: String = "") -> String {
        #""event":"start","timestamp":\#(timestamp),"attributes-type":"DeliveryAttributes","attributes":{"orderID":"A-17"},"#
            + #""content-state":{"progress":0.1,"status":"packing"},"alert":{"title":"Order A-17","body":"Packing"}\#(extra)"#
    }

    @Test func aPushStartedActivityIsUpdatedEndedAndDismissed() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: true)
        let registered = await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }
        let pushToStart = try #require(registered?["deviceToken"]?.stringValue, "\(fixture.daemon.output) \(fixture.daemon.errorOutput)")
        // The other app does not declare NSSupportsLiveActivities: no push-to-start token.
        let otherTokens = fixture.events("registered").filter { $0["topic"]?.stringValue == DaemonFixture.otherApp && $0["kind"] != nil }
        #expect(otherTokens.isEmpty)

        // A remote start asking for a token of its own.
        let first = Self.now
        #expect(try await Self.push(fixture, Self.start(timestamp: first, extra: #","input-push-token":1"#), to: pushToStart).status == 200)
        let started = try #require(await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "started" })
        let activityID = try #require(started["activityID"]?.stringValue)
        #expect(started["state"]?["status"] == .string("packing") && started["attributes"]?["orderID"] == .string("A-17"))
        #expect(started["attributesType"] == .string("DeliveryAttributes") && started["origin"] == .string("push"))
        #expect(started["alert"]?["title"] == .string("Order A-17"))
        let tokenEvent = await fixture.waitForEvent("registered") { $0["activityID"]?.stringValue == activityID }
        let token = try #require(tokenEvent?["deviceToken"]?.stringValue)
        #expect(tokenEvent?["kind"] == .string("activity"))

        // Updates by the activity's token, in timestamp order; an older one is dropped.
        let update = #""event":"update","timestamp":\#(first + 5),"content-state":{"progress":0.6,"status":"on the way"}"#
        #expect(try await Self.push(fixture, update, to: token).status == 200)
        let updated = await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "updated" }
        #expect(updated?["state"]?["status"] == .string("on the way"))
        let stale = #""event":"update","timestamp":\#(first + 1),"content-state":{"progress":0.2,"status":"old"}"#
        #expect(try await Self.push(fixture, stale, to: token).status == 200)
        let dropped = await fixture.waitForEvent("activityDropped")
        #expect(dropped?["reason"]?.stringValue?.contains("is not after") == true, "\(fixture.daemon.output)")
        // The token takes liveactivity pushes only; a liveactivity push to the app's own token is accepted and dropped.
        let alert = try await Self.push(fixture, #""alert":"hi""#, to: token, pushType: .alert)
        #expect(alert.status == 400 && alert.reason == .deviceTokenNotForTopic)
        #expect(try await Self.push(fixture, update, to: try fixture.token()).status == 200)
        #expect(await fixture.waitForEvent("activityDropped") { $0["reason"]?.stringValue?.contains("app's own token") == true } != nil)

        // An end with a dismissal date two seconds ahead: ended now, dismissed then, and its token retired.
        let end = #""event":"end","timestamp":\#(first + 9),"content-state":{"progress":1,"status":"delivered"},"dismissal-date":\#(Self.now + 2)"#
        #expect(try await Self.push(fixture, end, to: token).status == 200)
        let ended = await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "ended" }
        #expect(ended?["state"]?["status"] == .string("delivered") && ended?["phase"] == .string("ended"))
        #expect(fixture.events("activity").contains { $0["change"]?.stringValue == "dismissed" } == false)
        #expect(await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "dismissed" } != nil)
        #expect(await fixture.waitForEvent("unregistered") { $0["activityID"]?.stringValue == activityID } != nil)
        let gone = try await Self.push(fixture, update, to: token)
        #expect(gone.status == 410 && gone.reason == .expiredToken)
        try await fixture.stop()
    }

    /// Priority 10 has a budget per activity (15 an hour without frequent updates): past it the device drops the
    /// push, and the gateway's delivery log says why; priority 5 has none.
    @Test func priorityTenPastTheBudgetIsDroppedAndTheDeliveryLogSaysSo() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: true)
        let pushToStart = try #require(
            await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }?["deviceToken"]?.stringValue)
        let first = Self.now
        #expect(try await Self.push(fixture, Self.start(timestamp: first, extra: #","input-push-token":1"#), to: pushToStart).status == 200)
        let token = try #require(await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "activity" }?["deviceToken"]?.stringValue)
        func update(_ index: Int, priority: Int? = nil) async throws -> APNsResponse {
            try await Self.push(
                fixture, #""event":"update","timestamp":\#(first + index),"content-state":{"progress":0.1,"status":"update \#(index)"}"#,
                to: token, priority: priority)
        }
        for index in 1...15 { #expect(try await update(index).status == 200) }
        #expect(await fixture.waitForEvent("activity") { $0["state"]?["status"] == .string("update 15") } != nil)
        let over = try await update(16)
        let dropped = await fixture.waitForEvent("activityDropped") { $0["reason"]?.stringValue?.contains("budget") == true }
        #expect(dropped?["reason"]?.stringValue?.contains("15 an hour") == true, "\(fixture.daemon.output)")
        #expect(try await update(17, priority: 5).status == 200)
        #expect(await fixture.waitForEvent("activity") { $0["state"]?["status"] == .string("update 17") } != nil)

        // The delivery log: the push was delivered, then dropped by the device, with the device's reason.
        let uniqueID = try #require(over.uniqueID.flatMap(APNsID.parse))
        var logged: JSONValue = .null
        for _ in 0..<100 {
            if let row = try await fixture.gateway.store.notification(id: uniqueID), row.response != nil {
                logged = DeliveryTimeline.timeline(of: row)
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard case .array(let timeline)? = logged["timeline"] else { throw CancellationError() }
        let step = timeline.first { $0["event"] == .string("dropped") }
        #expect(step?["reason"] == .string("device") && step?["text"]?.stringValue?.contains("budget") == true, "\(logged)")
        try await fixture.stop()
    }

    @Test func aChannelsBroadcastUpdatesItsActivitiesAndSurvivesARestart() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: true)
        let pushToStart = try #require(
            await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }?["deviceToken"]?.stringValue)
        let channel = BroadcastChannel(
            bundleID: DaemonFixture.app, environment: .development, storagePolicy: .mostRecentMessageStored, createdAt: Date())
        #expect(try await fixture.gateway.store.createChannel(channel, limit: 10))
        let first = Self.now
        let start = Self.start(timestamp: first, extra: #","input-push-channel":"\#(channel.id)""#)
        #expect(try await Self.push(fixture, start, to: pushToStart).status == 200)
        #expect(await fixture.waitForEvent("subscribed") { $0["channelID"]?.stringValue == channel.id } != nil, "\(fixture.daemon.output)")

        let connection = try await fixture.gateway.connect()
        func broadcast(_ aps: String) async throws -> APNsResponse {
            try await connection.send(
                headers: [
                    (":method", "POST"), (":scheme", "https"), (":path", "/4/broadcasts/apps/\(DaemonFixture.app)"), (":authority", "localhost"),
                    ("authorization", "bearer \(fixture.gateway.defaultJWT)"), ("apns-channel-id", channel.id),
                    ("apns-expiration", String(Self.now + 600)), ("apns-priority", "10"), ("apns-push-type", "liveactivity"),
                ], body: Data(#"{"aps":{\#(aps)}}"#.utf8))
        }
        #expect(try await broadcast(#""event":"update","timestamp":\#(first + 1),"content-state":{"progress":0.5,"status":"halfway"}"#).status == 200)
        let updated = await fixture.waitForEvent("activity") { $0["change"]?.stringValue == "updated" }
        #expect(updated?["state"]?["status"] == .string("halfway") && updated?["channelID"] == .string(channel.id))

        // The daemon stops; a broadcast meanwhile is kept by the channel and reaches the restarted daemon, which still
        // knows its activity.
        fixture.daemon.terminate()
        _ = await fixture.daemon.exitStatus()
        #expect(try await broadcast(#""event":"update","timestamp":\#(first + 2),"content-state":{"progress":0.8,"status":"nearly"}"#).status == 200)
        let restarted = try HeraldProcess.start(fixture.daemonArguments)
        defer { restarted.terminate() }
        let resumed = await restarted.waitForEvent("activity") { $0["change"]?.stringValue == "updated" }
        #expect(resumed?["state"]?["status"] == .string("nearly"), "\(restarted.output)\(restarted.errorOutput)")
        await connection.close()
        restarted.terminate()
        _ = await restarted.exitStatus()
        try await fixture.gateway.stop()
    }
}

/// ActivityKit in an app process (the test app, compiled in the Swift 5 language mode as app code is) against the
/// daemon: `Activity.request`, its push token, updates from a provider, the app's own update and end, activities
/// started by a push reaching a running app's `activityUpdates` and a later process's `activities`.
@Suite(.serialized) struct ActivityKitAppTests {
    @Test func anAppsActivityTakesItsTokensPushesAndEnds() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: true)
        let app = try fixture.startApp(["activity-request", "token", "wait", "30"])
        defer { app.terminate() }
        let requested = try #require(await app.waitForEvent("requested"), "\(app.output)\(app.errorOutput)")
        let id = try #require(requested["id"]?.stringValue)
        #expect(
            requested["status"] == .string("ordered") && requested["orderID"] == .string("B-42") && requested["activityState"] == .string("active"))
        let token = try #require(await app.waitForEvent("pushToken")?["token"]?.stringValue, "\(app.output)")
        #expect(await fixture.waitForEvent("activity") { $0["activityID"]?.stringValue == id && $0["origin"] == .string("app") } != nil)

        // A provider's update reaches the app's contentUpdates.
        let update = #""event":"update","timestamp":\#(DaemonLiveActivityTests.now),"content-state":{"progress":0.5,"status":"on the way"}"#
        #expect(try await DaemonLiveActivityTests.push(fixture, update, to: token).status == 200)
        #expect(await app.waitForEvent("content") { $0["status"] == .string("on the way") } != nil, "\(app.output)")

        // Another process of the app lists it; then it ends it at once.
        let lister = try fixture.startApp(["activity-list", "wait", "0"])
        let listed = await lister.waitForEvent("activities")
        #expect(first(listed?["activities"])?["status"] == .string("on the way") && listed?["enabled"] == .bool(true), "\(lister.output)")
        #expect(listed?["pushToStartToken"]?.stringValue?.count == 64)
        let ender = try fixture.startApp(["activity-end", "delivered", "wait", "1"])
        #expect(await ender.waitForEvent("ended") != nil, "\(ender.output)")
        #expect(await app.waitForEvent("activityState") { $0["state"] == .string("dismissed") } != nil, "\(app.output)")
        #expect(await fixture.waitForEvent("unregistered") { $0["activityID"]?.stringValue == id } != nil)
        let gone = try await DaemonLiveActivityTests.push(fixture, update, to: token)
        #expect(gone.status == 410 && gone.reason == .expiredToken)
        try await fixture.stop()
    }

    @Test func aPushStartedActivityReachesARunningAppAndALaterOne() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: true)
        let watcher = try fixture.startApp(["activity-watch", "wait", "30"])
        defer { watcher.terminate() }
        let pushToStart = try #require(await watcher.waitForEvent("pushToStartToken")?["token"]?.stringValue, "\(watcher.output)")
        let start =
            #""event":"start","timestamp":\#(DaemonLiveActivityTests.now),"attributes-type":"DeliveryAttributes","#
            + #""attributes":{"orderID":"P-7"},"content-state":{"progress":0.2,"status":"picked"},"alert":"Started""#
        #expect(try await DaemonLiveActivityTests.push(fixture, start, to: pushToStart).status == 200)
        let started = await watcher.waitForEvent("activityStarted")
        #expect(started?["orderID"] == .string("P-7") && started?["status"] == .string("picked"), "\(watcher.output)")
        // A later process of the app finds it, and lists the one it starts itself after it, oldest first.
        let later = try fixture.startApp(["activity-request", "none", "activity-list", "wait", "0"])
        let listed = await later.waitForEvent("activities")
        guard case .array(let activities)? = listed?["activities"] else { throw CancellationError() }
        #expect(activities.map { $0["orderID"] } == [.string("P-7"), .string("B-42")], "\(later.output)")
        try await fixture.stop()
    }

    @Test func anAppWithoutTheInfoPlistKeyIsUnentitled() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: false)
        let app = try fixture.startApp(["activity-request", "none", "wait", "0"])
        let failed = await app.waitForEvent("requestFailed")
        #expect(failed?["error"] == .string("unentitled"), "\(app.output)\(app.errorOutput)")
        let lister = try fixture.startApp(["activity-list", "wait", "0"])
        #expect(await lister.waitForEvent("activities")?["enabled"] == .bool(false))
        try await fixture.stop()
    }
}

/// The first element of a JSON array.
private func first(_ value: JSONValue?) -> JSONValue? {
    guard case .array(let elements)? = value else { return nil }
    return elements.first
}

/// The person's Live Activities switch (`herald device settings --live-activities`), as apps and pushes see it.
@Suite(.serialized) struct LiveActivitySettingsTests {
    @Test func turnedOffAnAppIsDeniedAndPushesStartNothing() async throws {
        let fixture = try await DaemonFixture.start(liveActivities: true)
        let pushToStart = try #require(
            await fixture.waitForEvent("registered") { $0["kind"]?.stringValue == "pushToStart" }?["deviceToken"]?.stringValue)
        let off = try await CommandRunTests.run(
            ["device", "settings", "--app", DaemonFixture.app, "--live-activities", "off", "--json", "--data-dir", fixture.data])
        #expect(off.status == 0 && off.output.contains(#""liveActivities":"off""#), "\(off.output)\(off.error)")
        let app = try fixture.startApp(["activity-request", "none", "activity-list", "wait", "0"])
        #expect(await app.waitForEvent("requestFailed")?["error"] == .string("denied"), "\(app.output)")
        #expect(await app.waitForEvent("activities")?["enabled"] == .bool(false))
        let start =
            #""event":"start","timestamp":\#(DaemonLiveActivityTests.now),"attributes-type":"DeliveryAttributes","#
            + #""attributes":{"orderID":"X"},"content-state":{"progress":0,"status":"x"},"alert":"x""#
        #expect(try await DaemonLiveActivityTests.push(fixture, start, to: pushToStart).status == 200)
        #expect(await fixture.waitForEvent("activityDropped") { $0["reason"]?.stringValue?.contains("turned off") == true } != nil)

        _ = try await CommandRunTests.run(["device", "settings", "--app", DaemonFixture.app, "--live-activities", "on", "--data-dir", fixture.data])
        let again = try fixture.startApp(["activity-request", "none", "wait", "0"])
        #expect(await again.waitForEvent("requested") != nil, "\(again.output)")
        try await fixture.stop()
    }
}
