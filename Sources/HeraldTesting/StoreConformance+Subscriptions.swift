import Foundation
import HeraldStore
import HeraldWire
import Testing

extension StoreConformance {
    /// An app on a device holds one token of each kind, and one per Live Activity: registering again gives the same
    /// live token, a retired one is replaced by a new one, and only app tokens count as the app's devices.
    static func tokenKinds(_ store: any Store) async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func register(_ kind: TokenKind, _ activityID: String? = nil, bundleID: String = "com.example.a") async throws -> DeviceRecord {
            try await store.register(
                owner: "device-1", bundleID: bundleID, environment: .development, kind: kind, activityID: activityID, at: now)
        }
        let app = try await register(.app)
        let pushToStart = try await register(.pushToStart)
        let first = try await register(.activity, "A1")
        let second = try await register(.activity, "A2")
        #expect(Set([app.token, pushToStart.token, first.token, second.token]).count == 4)
        #expect(pushToStart.kind == .pushToStart && pushToStart.activityID == nil)
        #expect(first.kind == .activity && first.activityID == "A1" && first.topic == "com.example.a" && first.owner == "device-1")
        #expect(try await register(.app) == app)
        #expect(try await register(.pushToStart) == pushToStart)
        #expect(try await register(.activity, "A1") == first)
        #expect(try await store.device(first.token) == first)
        #expect(try await register(.pushToStart, bundleID: "com.example.b") != pushToStart)

        #expect(try await store.retireDevice(first.token, as: .expired, at: now))
        let replaced = try await register(.activity, "A1")
        #expect(replaced.token != first.token && replaced.retiredAt == nil)
        let live = try await store.devices(owner: "device-1")
        #expect(
            Set(live.map(\.token)) == [app.token, pushToStart.token, replaced.token, second.token, live.first { $0.topic == "com.example.b" }!.token])
        #expect(try await store.apps().first { $0.bundleID == "com.example.a" }?.deviceCount == 1)
    }

    /// Subscriptions are per device and channel; a device is offered its channels' kept broadcasts until it acknowledges
    /// them, while they have not expired and the channel is live.
    static func channelSubscriptions(_ store: any Store) async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let channel = BroadcastChannel(bundleID: "com.example.a", environment: .development, storagePolicy: .mostRecentMessageStored, createdAt: now)
        let other = BroadcastChannel(bundleID: "com.example.a", environment: .development, storagePolicy: .mostRecentMessageStored, createdAt: now)
        #expect(try await store.createChannel(channel, limit: 10))
        #expect(try await store.createChannel(other, limit: 10))
        let subscription = ChannelSubscription(deviceID: "device-1", channelID: channel.id, bundleID: "com.example.a", subscribedAt: now)
        try await store.subscribe(subscription)
        try await store.subscribe(subscription)  // again: one subscription
        try await store.subscribe(ChannelSubscription(deviceID: "device-2", channelID: channel.id, bundleID: "com.example.a", subscribedAt: now))
        #expect(try await store.subscriptions(deviceID: "device-1") == [subscription])
        #expect(try await store.subscriberCount(channelID: channel.id) == 2)
        #expect(try await store.subscriberCount(channelID: other.id) == 0)
        #expect(Set(try await store.channels(environment: .development, limit: 10).map(\.id)) == [channel.id, other.id])
        #expect(try await store.channels(environment: .development, limit: 1).count == 1)
        #expect(try await store.channels(environment: .production, limit: 10).isEmpty)
        #expect(try await store.keptBroadcasts(deviceID: "device-1", at: now).isEmpty)

        let kept = try #require(try await store.insertNotifications([broadcast(on: channel, at: now, keptFor: 3600)]).first)
        _ = try await store.insertNotifications([broadcast(on: other, at: now, keptFor: 3600)])  // not subscribed
        #expect(try await store.keptBroadcasts(deviceID: "device-1", at: now).map(\.id) == [kept.id])
        #expect(try await store.keptBroadcasts(deviceID: "device-1", at: now).first?.channelID == channel.id)
        #expect(try await store.keptBroadcasts(deviceID: "device-1", at: now.addingTimeInterval(3601)).isEmpty)  // expired

        try await store.markBroadcastsDelivered([
            BroadcastDelivery(deviceID: "device-1", channelID: channel.id, notificationID: try #require(kept.id))
        ])
        #expect(try await store.keptBroadcasts(deviceID: "device-1", at: now).isEmpty)
        #expect(try await store.keptBroadcasts(deviceID: "device-2", at: now).map(\.id) == [kept.id])
        #expect(try await store.broadcastAcknowledgements(channelID: channel.id, notificationID: try #require(kept.id)) == 1)
        try await store.subscribe(subscription)  // subscribing again keeps the mark
        #expect(try await store.keptBroadcasts(deviceID: "device-1", at: now).isEmpty)
        let newer = try #require(try await store.insertNotifications([broadcast(on: channel, at: now, keptFor: 60)]).first)
        #expect(try await store.keptBroadcasts(deviceID: "device-1", at: now).map(\.id) == [newer.id])

        #expect(try await store.unsubscribe(deviceID: "device-1", channelID: channel.id))
        #expect(try await store.unsubscribe(deviceID: "device-1", channelID: channel.id) == false)
        #expect(try await store.keptBroadcasts(deviceID: "device-1", at: now).isEmpty)
        #expect(try await store.subscriptions(deviceID: "device-1").isEmpty)
        #expect(try await store.deleteChannel(id: channel.id, at: now))
        #expect(try await store.keptBroadcasts(deviceID: "device-2", at: now).isEmpty)  // the channel is gone
    }
}
