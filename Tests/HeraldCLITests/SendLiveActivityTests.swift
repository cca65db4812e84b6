import Foundation
import HeraldGatewayTesting
import HeraldStore
import HeraldWire
import Testing

/// `herald send --live-activity start|update|end`: the topic's suffix, `aps.event` and `aps.timestamp` filled in, the
/// flags' keys set, and the gateway's Live Activity rules met or named before anything is sent.
@Suite struct SendLiveActivityTests {
    @Test func anUpdateGetsItsTopicEventAndTimestampAndIsAccepted() async throws {
        let setup = try await SendCommandTests.setUp()
        let token = try await SendCommandTests.issue(setup)
        let before = Int64(Date().timeIntervalSince1970)
        let sent = try await CommandRunTests.run(
            setup.common + ["--topic", "com.example.cli", "--device", token, "--live-activity", "update", "--stale-date", "1900000000", "-"],
            input: #"{"aps":{"content-state":{"progress":0.5}}}"#)
        #expect(sent.status == 0 && sent.output.contains("status: 200"), "\(sent.output) \(sent.error)")
        let stored = try #require(try await setup.gateway.store.notifications(matching: .all, before: nil, limit: 1).first)
        #expect(stored.topic == "com.example.cli.push-type.liveactivity" && stored.pushType == .liveActivity)
        let aps = try JSONValue.parse(stored.payload)["aps"]
        #expect(aps?["event"] == .string("update") && aps?["stale-date"] == .integer(1_900_000_000))
        #expect((aps?["timestamp"]?.integerValue ?? 0) >= before)
        try await setup.gateway.stop()
    }

    @Test func aStartNeedsItsAttributesAndSaysSoBeforeSending() async throws {
        let setup = try await SendCommandTests.setUp()
        let token = try await SendCommandTests.issue(setup)
        let base = setup.common + ["--topic", "com.example.cli.push-type.liveactivity", "--device", token, "--live-activity", "start"]
        let missing = try await CommandRunTests.run(base + ["-"], input: #"{"aps":{"content-state":{"progress":0}}}"#)
        #expect(missing.status != 0)
        #expect(missing.error.contains(#"a Live Activity start needs "attributes-type" (APNs would answer BadPayload)"#), "\(missing.error)")
        let start = #"{"aps":{"content-state":{"progress":0},"attributes":{"order":"A1"},"alert":{"title":"Order A1","body":"Packed"}}}"#
        let sent = try await CommandRunTests.run(base + ["--attributes-type", "DeliveryAttributes", "-"], input: start)
        #expect(sent.output.contains("status: 200"), "\(sent.output) \(sent.error)")
        let stored = try #require(try await setup.gateway.store.notifications(matching: .all, before: nil, limit: 1).first)
        #expect(stored.topic == "com.example.cli.push-type.liveactivity")  // already suffixed: kept as given
        #expect(try JSONValue.parse(stored.payload)["aps"]?["attributes-type"] == .string("DeliveryAttributes"))
        #expect(try await setup.notificationCount() == 1)
        try await setup.gateway.stop()
    }

    @Test func conflictsAreNamed() async throws {
        let setup = try await SendCommandTests.setUp()
        let token = try await SendCommandTests.issue(setup)
        let base = setup.common + ["--topic", "com.example.cli", "--device", token]
        let event = try await CommandRunTests.run(
            base + ["--live-activity", "end", "-"], input: #"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#)
        #expect(event.error.contains(#"the payload's aps.event is "update", but --live-activity says end"#), "\(event.error)")
        let pushType = try await CommandRunTests.run(base + ["--live-activity", "end", "--push-type", "alert", "-"], input: "{}")
        #expect(pushType.error.contains("--live-activity sends a liveactivity push; leave out --push-type alert"), "\(pushType.error)")
        let stale = try await CommandRunTests.run(base + ["--stale-date", "1900000000", "-"], input: #"{"aps":{"alert":"x"}}"#)
        #expect(stale.error.contains("--stale-date goes with --live-activity start|update|end"), "\(stale.error)")
        #expect(try await setup.notificationCount() == 0)
        try await setup.gateway.stop()
    }

    /// `--channel`: one broadcast to a channel's subscribers, its answer's `apns-request-id`, and the channel keeping it.
    @Test func aBroadcastGoesToAChannel() async throws {
        let setup = try await SendCommandTests.setUp()
        let channel = BroadcastChannel(
            bundleID: "com.example.cli", environment: .development, storagePolicy: .mostRecentMessageStored, createdAt: Date())
        #expect(try await setup.gateway.store.createChannel(channel, limit: 10))
        let expiration = String(Int64(Date().timeIntervalSince1970) + 600)
        let base = setup.common + ["--topic", "com.example.cli", "--channel", channel.id]
        let sent = try await CommandRunTests.run(
            base + ["--live-activity", "update", "--expiration", expiration, "-"], input: #"{"aps":{"content-state":{"score":"1-0"}}}"#)
        #expect(sent.status == 0, "\(sent.output) \(sent.error)")
        #expect(sent.output.contains("status: 200") && sent.output.contains("apns-request-id: ") && sent.output.contains("apns-unique-id: "))
        let kept = try #require(try await setup.gateway.store.latestBroadcast(channelID: channel.id))
        #expect(try JSONValue.parse(kept.payload)["aps"]?["content-state"]?["score"] == .string("1-0"))
        // One row in the delivery log, the channel's, whatever the number of subscribers.
        #expect(try await setup.notificationCount() == 1)
        #expect(try await setup.gateway.store.notification(id: kept.uniqueID)?.channelID == channel.id)

        let unknown = try await CommandRunTests.run(
            setup.common + ["--topic", "com.example.cli", "--channel", BroadcastChannel.newID(), "--live-activity", "end", "-"], input: "{}")
        #expect(unknown.status == 1 && unknown.output.contains("reason: BadChannelId"), "\(unknown.output) \(unknown.error)")
        let start = try await CommandRunTests.run(
            base + ["--live-activity", "start", "--attributes-type", "A", "-"],
            input: #"{"aps":{"content-state":{},"attributes":{},"alert":"x"}}"#)
        #expect(start.error.contains("a broadcast updates or ends activities"), "\(start.error)")
        let withDevice = try await CommandRunTests.run(base + ["--device", String(repeating: "ab", count: 32), "-"], input: "{}")
        #expect(withDevice.error.contains("--channel sends one broadcast to the channel's subscribers"), "\(withDevice.error)")
        try await setup.gateway.stop()
    }
}
