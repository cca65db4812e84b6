import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// The admin API behind the console's Live Activities page: the Live Activity tokens of each device with their latest
/// pushes (and the device's word when it dropped one), the channels, and a broadcast sent through the provider API.
@Suite struct ConsoleLiveActivitiesTests {
    @Test func tokensChannelsAndABroadcastFromTheConsole() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        _ = try await device.register(TestGateway.topic)
        let pushToStart = try await device.register(TestGateway.topic, kind: .pushToStart)
        let activity = try await device.register(TestGateway.topic, kind: .activity, activityID: "A-1")
        let channel = try await BroadcastTests.channel(gateway, policy: .mostRecentMessageStored)
        try await device.subscribe(TestGateway.topic, channelID: channel.id)

        // A push to the activity's token, which the device says it dropped.
        var push = Push(token: activity, jwt: gateway.defaultJWT)
        push.topic = TestGateway.topic + ".push-type.liveactivity"
        push.pushType = .liveActivity
        push.body = Data(#"{"aps":{"event":"update","timestamp":5,"content-state":{"eta":3}}}"#.utf8)
        let connection = try await gateway.connect()
        let sent = try await connection.send(push)
        let notification = try await device.notification()
        device.send(.dropped(uniqueID: notification.uniqueID, reason: "over the activity's priority-10 budget"))
        device.acknowledge(notification)
        try await waitUntil { try await gateway.store.notification(id: notification.uniqueID)?.response != nil }

        let admin = AdminClient(gateway: gateway)
        let overview = try await admin.get("/v1/live-activities").body
        guard case .array(let tokens)? = overview["tokens"], case .array(let channels)? = overview["channels"] else {
            throw TestFailure("no tokens or channels: \(overview)")
        }
        #expect(Set(tokens.compactMap { $0["deviceToken"]?.stringValue }) == [pushToStart, activity])
        let activityRow = try #require(tokens.first { $0["kind"] == .string("activity") })
        #expect(activityRow["activityID"] == .string("A-1") && activityRow["online"] == .bool(true))
        guard case .array(let pushes)? = activityRow["pushes"], let latest = pushes.first else { throw TestFailure("no pushes: \(activityRow)") }
        #expect(latest["uniqueID"]?.stringValue == sent.uniqueID && latest["event"] == .string("update"))
        #expect(latest["contentState"] == .object(["eta": .integer(3)]) && latest["dropped"] == .string("over the activity's priority-10 budget"))
        #expect(channels.count == 1 && channels[0]["id"] == .string(channel.id) && channels[0]["subscribers"] == .integer(1))

        // A broadcast from the console reaches the subscribed device; a bad form is refused.
        let body =
            #"{"bundleID":"\#(TestGateway.topic)","channelID":"\#(channel.id)","payload":"{\"aps\":{\"event\":\"update\",\"timestamp\":6,\"content-state\":{\"eta\":1}}}","expiration":\#(Int(Date().timeIntervalSince1970) + 600)}"#
        let broadcast = try await admin.request("POST", "/v1/broadcast", body: body)
        #expect(broadcast.status == 200 && broadcast.body["status"] == .integer(200), "\(broadcast.body)")
        #expect(try await device.notification().channelID == channel.id)
        let kept = try await admin.get("/v1/live-activities").body["channels"]
        guard case .array(let after)? = kept else { throw TestFailure("no channels") }
        #expect(after.first?["kept"]?["uniqueID"] == broadcast.body["uniqueID"])
        #expect(try await admin.request("POST", "/v1/broadcast", body: #"{"channelID":"x"}"#).status == 400)
        let unknown = try await admin.request(
            "POST", "/v1/broadcast", body: body.replacingOccurrences(of: channel.id, with: BroadcastChannel.newID()))
        #expect(unknown.body["status"] == .integer(400) && unknown.body["reason"] == .string("BadChannelId"), "\(unknown.body)")
        await connection.close()
        await device.leave()
        try await gateway.stop()
    }
}
