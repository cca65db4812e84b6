import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// Broadcasts reaching devices: subscriptions over the device link, the fan-out of one committed row to every
/// subscribed device online, and a channel's kept broadcast for devices that come back or subscribe late.
@Suite struct ChannelFanOutTests {
    /// A device with the test app registered, subscribed to `channels`.
    static func subscriber(_ gateway: TestGateway, to channels: [BroadcastChannel], key: P256.Signing.PrivateKey = P256.Signing.PrivateKey())
        async throws -> TestDevice
    {
        let device = try await TestDevice.connect(to: gateway, key: key)
        _ = try await device.register(TestGateway.topic)
        for channel in channels { try await device.subscribe(TestGateway.topic, channelID: channel.id) }
        return device
    }

    static func expiration(_ gateway: TestGateway, in seconds: Int64 = 600) -> String {
        String(Int64(gateway.clock.now().timeIntervalSince1970) + seconds)
    }

    @Test func oneBroadcastReachesEverySubscribedDeviceAsOneRow() async throws {
        let gateway = try await TestGateway.start()
        let channel = try await BroadcastTests.channel(gateway, policy: .noMessageStored)
        let other = try await BroadcastTests.channel(gateway, policy: .noMessageStored)
        var subscribers: [TestDevice] = []
        for _ in 0..<5 { subscribers.append(try await Self.subscriber(gateway, to: [channel])) }
        let elsewhere = try await Self.subscriber(gateway, to: [other])
        let unsubscribed = try await Self.subscriber(gateway, to: [])
        #expect(try await gateway.store.subscriberCount(channelID: channel.id) == 5)

        let connection = try await gateway.connect()
        let answer = try await BroadcastTests.broadcast(connection, gateway, channel: channel.id)
        #expect(answer.status == 200)
        let uniqueID = try #require(answer.uniqueID.flatMap(APNsID.parse))
        for device in subscribers {
            let received = try await device.notification()
            #expect(received.channelID == channel.id && received.uniqueID == uniqueID && received.pushType == .liveActivity)
            #expect(received.topic == TestGateway.topic + ".push-type.liveactivity" && received.payload == Data(BroadcastTests.update.utf8))
            #expect(received.deviceToken == BroadcastChannel.token(forChannel: channel.id)?.hex)
            device.acknowledge(received)
        }
        #expect(try await elsewhere.next(timeout: .milliseconds(300)) == nil)
        #expect(try await unsubscribed.next(timeout: .milliseconds(100)) == nil)
        // One row in the store for five devices: one commit whatever the number of subscribers.
        #expect(try await gateway.store.notificationCount() == 1)
        #expect(try await gateway.store.notification(id: uniqueID)?.channelID == channel.id)
        // The delivery log says it is a broadcast, and on which channel.
        let logged = try await AdminClient(gateway: gateway).get("/v1/notifications/\(APNsID.format(uniqueID))").body
        #expect(logged["channelID"] == .string(channel.id), "\(logged)")
        guard case .array(let timeline)? = logged["timeline"] else { throw TestFailure("no timeline: \(logged)") }
        #expect(timeline.contains { $0["reason"] == .string("broadcast") }, "\(logged)")
        // Its fan-out: the five subscribers acknowledged it (marked without waiting for the disk, a beat later).
        try await waitUntil {
            try await AdminClient(gateway: gateway).get("/v1/notifications/\(APNsID.format(uniqueID))").body["fanOut"]
                == .object(["subscribers": .integer(5), "acknowledged": .integer(5)])
        }

        // Unsubscribed, a device gets no more.
        subscribers[0].send(.unsubscribe(topic: TestGateway.topic, channelID: channel.id))
        guard case .unsubscribed(TestGateway.topic, channel.id)? = try await subscribers[0].next() else {
            Issue.record("no unsubscribed")
            return
        }
        #expect(try await BroadcastTests.broadcast(connection, gateway, channel: channel.id).status == 200)
        for device in subscribers.dropFirst() { #expect(try await device.notification().channelID == channel.id) }
        #expect(try await subscribers[0].next(timeout: .milliseconds(300)) == nil)
        for device in subscribers + [elsewhere, unsubscribed] { await device.leave() }
        try await gateway.stop()
    }

    @Test func aKeptBroadcastReachesADeviceThatComesBackOnce() async throws {
        let gateway = try await TestGateway.start()
        let kept = try await BroadcastTests.channel(gateway, policy: .mostRecentMessageStored)
        let unkept = try await BroadcastTests.channel(gateway, policy: .noMessageStored)
        let key = P256.Signing.PrivateKey()
        let device = try await Self.subscriber(gateway, to: [kept, unkept], key: key)
        _ = await device.leave()

        let connection = try await gateway.connect()
        #expect(try await BroadcastTests.broadcast(connection, gateway, channel: kept.id, expiration: Self.expiration(gateway)).status == 200)
        let latest = try await BroadcastTests.broadcast(
            connection, gateway, channel: kept.id, expiration: Self.expiration(gateway),
            body: BroadcastTests.update.replacingOccurrences(of: "2-1", with: "3-1"))
        #expect(try await BroadcastTests.broadcast(connection, gateway, channel: unkept.id).status == 200)  // stored nowhere

        // Back: the channel's latest only; acknowledged, it does not come again.
        let back = try await TestDevice.connect(to: gateway, key: key)
        let received = try await back.notification()
        #expect(received.channelID == kept.id && received.uniqueID == latest.uniqueID.flatMap(APNsID.parse))
        back.acknowledge(received)
        #expect(try await back.next(timeout: .milliseconds(300)) == nil)
        try await waitUntil { try await gateway.store.keptBroadcasts(deviceID: back.deviceID, at: gateway.clock.now()).isEmpty }
        _ = await back.leave()
        let again = try await TestDevice.connect(to: gateway, key: key)
        #expect(try await again.next(timeout: .milliseconds(500)) == nil)
        await again.leave()
        try await gateway.stop()
    }

    @Test func aDeviceThatSubscribesLateGetsTheKeptBroadcast() async throws {
        let gateway = try await TestGateway.start()
        let channel = try await BroadcastTests.channel(gateway, policy: .mostRecentMessageStored)
        let connection = try await gateway.connect()
        let sent = try await BroadcastTests.broadcast(connection, gateway, channel: channel.id, expiration: Self.expiration(gateway))
        let device = try await Self.subscriber(gateway, to: [channel])
        let received = try await device.notification()
        #expect(received.uniqueID == sent.uniqueID.flatMap(APNsID.parse) && received.channelID == channel.id)
        // Expired, it is not offered to the next one.
        gateway.clock.advance(by: 601)
        let late = try await Self.subscriber(gateway, to: [channel])
        #expect(try await late.next(timeout: .milliseconds(300)) == nil)
        await device.leave()
        await late.leave()
        try await gateway.stop()
    }

    @Test func subscriptionsAreRefusedAsBroadcastsWouldBe() async throws {
        let gateway = try await TestGateway.start()
        let live = try await BroadcastTests.channel(gateway, policy: .noMessageStored)
        let deleted = try await BroadcastTests.channel(gateway, policy: .noMessageStored)
        #expect(try await gateway.store.deleteChannel(id: deleted.id, at: gateway.clock.now()))
        let otherApp = BroadcastChannel(bundleID: "com.example.other", environment: .development, storagePolicy: .noMessageStored, createdAt: Date())
        #expect(try await gateway.store.createChannel(otherApp, limit: 10))
        let device = try await TestDevice.connect(to: gateway)
        func refusal(_ request: DeviceLinkMessage) async throws -> DeviceLinkMessage.Refusal? {
            device.send(request)
            guard case .error(let refusal)? = try await device.next() else { return nil }
            return refusal
        }
        let unregistered = try await refusal(.subscribe(topic: TestGateway.topic, channelID: live.id))
        #expect(unregistered?.reason == "NotRegistered" && unregistered?.channelID == live.id)
        _ = try await device.register(TestGateway.topic)
        #expect(try await refusal(.subscribe(topic: TestGateway.topic, channelID: BroadcastChannel.newID()))?.reason == "BadChannelId")
        #expect(try await refusal(.subscribe(topic: TestGateway.topic, channelID: "not an id"))?.reason == "BadChannelId")
        #expect(try await refusal(.subscribe(topic: TestGateway.topic, channelID: deleted.id))?.reason == "ChannelNotRegistered")
        #expect(try await refusal(.subscribe(topic: TestGateway.topic, channelID: otherApp.id))?.reason == "ChannelNotRegistered")
        #expect(try await refusal(.unsubscribe(topic: TestGateway.topic, channelID: live.id))?.reason == "NotSubscribed")
        try await device.subscribe(TestGateway.topic, channelID: live.id)

        // Removing the app takes its subscriptions with it.
        device.send(.unregister(topic: TestGateway.topic))
        _ = try await device.next()
        #expect(try await gateway.store.subscriptions(deviceID: device.deviceID).isEmpty)
        await device.leave()
        try await gateway.stop()
    }
}
