import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire
import Hummingbird

/// `GET /v1/live-activities`: what the gateway knows of Live Activities, for the console's Live Activities page: the
/// broadcast channels with their storage policy, subscribers and kept broadcast, and each linked device's push-to-start
/// and activity tokens with the latest pushes to them (from the delivery log: the event, the state, when, and what
/// became of it).
struct ConsoleLiveActivities: Sendable {
    let store: any Store
    let hub: DeviceHub
    let environment: APNsEnvironment

    /// The most channels listed, and pushes shown per token.
    static let channelLimit = 200
    static let pushesPerToken = 5

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("live-activities") { _, _ in AdminAPI.json(.ok, try await overview()) }
    }

    private func overview() async throws -> JSONValue {
        var channels: [JSONValue] = []
        for channel in try await store.channels(environment: environment, limit: Self.channelLimit) {
            var fields: [String: JSONValue] = [
                "id": .string(channel.id), "bundleID": .string(channel.bundleID), "storagePolicy": .integer(Int64(channel.storagePolicy.rawValue)),
                "created": .string(DeliveryTimeline.timestamp(channel.createdAt)),
                "subscribers": .integer(Int64(try await store.subscriberCount(channelID: channel.id))),
            ]
            if let kept = try await store.latestBroadcast(channelID: channel.id) {
                fields["kept"] = .object([
                    "uniqueID": .string(APNsID.format(kept.uniqueID)), "expires": .string(DeliveryTimeline.timestamp(kept.expiresAt)),
                    "received": .string(DeliveryTimeline.timestamp(kept.receivedAt)),
                    "payload": .string(String(decoding: kept.payload, as: UTF8.self)),
                ])
            }
            channels.append(.object(fields))
        }
        let online = try await hub.onlineDeviceIDs(everywhereIn: store)
        var tokens: [JSONValue] = []
        for device in try await store.linkedDevices() {
            for record in try await store.devices(owner: device.id) where record.kind.isLiveActivity && record.environment == environment {
                var fields: [String: JSONValue] = [
                    "deviceID": .string(device.id), "online": .bool(online.contains(device.id)), "topic": .string(record.topic),
                    "kind": .string(record.kind.rawValue), "deviceToken": .string(record.token.hex),
                    "registered": .string(DeliveryTimeline.timestamp(record.createdAt)),
                    "pushes": .array(try await pushes(to: record.token)),
                ]
                if let activityID = record.activityID { fields["activityID"] = .string(activityID) }
                tokens.append(.object(fields))
            }
        }
        return .object(["environment": .string(environment.rawValue), "channels": .array(channels), "tokens": .array(tokens)])
    }

    /// The latest pushes to a token, newest first: `{"uniqueID", "received", "state", "event", "contentState", "priority"}`.
    private func pushes(to token: DeviceToken) async throws -> [JSONValue] {
        try await store.notifications(matching: .deviceTokenPrefix(token.hex), before: nil, limit: Self.pushesPerToken).map { notification in
            let aps = (try? JSONValue.parse(notification.payload))?["aps"]
            var fields: [String: JSONValue] = [
                "uniqueID": .string(APNsID.format(notification.uniqueID)), "received": .string(DeliveryTimeline.timestamp(notification.receivedAt)),
                "state": .string(notification.delivery.state.rawValue), "priority": .integer(Int64(notification.priority.rawValue)),
                "event": aps?["event"] ?? .null, "contentState": aps?["content-state"] ?? .null,
            ]
            if notification.response?.action == NotificationResponse.droppedByDevice {
                fields["dropped"] = .string(notification.response?.text ?? "")
            }
            return .object(fields)
        }
    }
}
