import Foundation
import HeraldStore
import HeraldWire

/// The answers to what a device asks over its link: tokens (an app's own, its push-to-start token, a Live Activity's)
/// and channel subscriptions. docs/device-link.md lists the refusals.
extension DeviceLinkServices {
    /// The answer to a `register`, `unregister`, `subscribe` or `unsubscribe` from the device `deviceID`.
    func answer(_ request: DeviceLinkMessage, deviceID: String) async throws(StoreError) -> DeviceLinkMessage {
        switch request {
        case .register(let topic, .webPush, let activityID, let applicationServerKey):
            return try await registerWebPush(
                request, topic: topic, activityID: activityID, applicationServerKey: applicationServerKey, deviceID: deviceID)
        case .register(let topic, let kind, let activityID, _):
            return try await register(request, topic: topic, kind: kind, activityID: activityID, deviceID: deviceID)
        case .unregister(let topic, let kind, let activityID):
            return try await unregister(request, topic: topic, kind: kind, activityID: activityID, deviceID: deviceID)
        case .subscribe(let topic, let channelID):
            return try await subscribe(request, topic: topic, channelID: channelID, deviceID: deviceID)
        case .unsubscribe(let topic, let channelID):
            guard try await store.unsubscribe(deviceID: deviceID, channelID: channelID) else {
                return request.refused(reason: "NotSubscribed", message: "this device takes no broadcasts on channel \(channelID)")
            }
            hub.unsubscribed(deviceID: deviceID, channelID: channelID)
            return .unsubscribed(topic: topic, channelID: channelID)
        default:
            preconditionFailure("\(request.typeName) is not a request")
        }
    }

    private func register(
        _ request: DeviceLinkMessage, topic: String, kind: TokenKind, activityID: String?, deviceID: String
    ) async throws(StoreError) -> DeviceLinkMessage {
        guard !topic.isEmpty, TopicSyntax.isValid(topic) else {
            return request.refused(reason: "BadTopic", message: "\"\(topic)\" is not a bundle id such as com.example.app")
        }
        if let activityID, !Self.isValidActivityID(activityID) {
            return request.refused(reason: "BadActivityId", message: "an activity id is 1 to 64 letters, digits and dashes (a UUID)")
        }
        let live = try await liveTokens(deviceID: deviceID)
        switch kind {
        case .app:
            let apps = live.filter { $0.kind == .app }
            if apps.count >= configuration.deviceAppLimit, !apps.contains(where: { $0.topic == topic }) {
                return request.refused(
                    reason: "TooManyApps",
                    message: "this device has \(apps.count) apps registered, the most a device may have; unregister one first")
            }
        case .pushToStart, .activity:
            // Live Activities belong to an installed app: its own token comes first.
            guard live.contains(where: { $0.kind == .app && $0.topic == topic }) else {
                return request.refused(reason: "NotRegistered", message: "register \(topic) itself before its Live Activity tokens")
            }
            let activities = live.filter { $0.kind == .activity && $0.topic == topic }
            if kind == .activity, activities.count >= configuration.deviceActivityTokenLimit,
                !activities.contains(where: { $0.activityID == activityID })
            {
                return request.refused(
                    reason: "TooManyActivities",
                    message:
                        "\(topic) has \(activities.count) Live Activity tokens on this device, the most it may have; unregister an ended one first"
                )
            }
        case .webPush:
            return request.refused(reason: "BadKind", message: "a device link does not take web push subscriptions")
        }
        let device = try await store.register(
            owner: deviceID, bundleID: topic, environment: configuration.environment, kind: kind, activityID: activityID, at: clock.now())
        directory.remember(device)
        return .registered(topic: topic, deviceToken: device.token.hex, kind: kind, activityID: activityID)
    }

    /// Retires the token asked for. An app's own token takes the app's other tokens and its subscriptions with it (the
    /// app was removed: all answer 410 Unregistered, and the device is told of each); an activity's token answers 410
    /// ExpiredToken from now on (its activity was dismissed), as does a push-to-start token.
    private func unregister(
        _ request: DeviceLinkMessage, topic: String, kind: TokenKind, activityID: String?, deviceID: String
    ) async throws(StoreError) -> DeviceLinkMessage {
        let live = try await liveTokens(deviceID: deviceID)
        guard let device = live.first(where: { $0.topic == topic && $0.kind == kind && $0.activityID == activityID }) else {
            let what = kind == .app ? "registration for \(topic)" : "\(kind.rawValue) token of \(topic)"
            return request.refused(reason: "NotRegistered", message: "this device has no \(what)")
        }
        try await retire(device, as: kind == .app || kind == .webPush ? .unregistered : .expired, answered: true)
        if kind == .app {
            for other in live where other.topic == topic && other.kind != .app {
                try await retire(other, as: .unregistered, answered: false)
            }
            for subscription in try await store.subscriptions(deviceID: deviceID) where subscription.bundleID == topic {
                _ = try await store.unsubscribe(deviceID: deviceID, channelID: subscription.channelID)
                hub.unsubscribed(deviceID: deviceID, channelID: subscription.channelID)
            }
        }
        await retirements?.check()
        return .unregistered(topic: topic, deviceToken: device.token.hex, kind: kind, activityID: activityID)
    }

    /// Retires one token; `answered` when the device's request is answered with it (the feed does not tell it again).
    func retire(_ device: DeviceRecord, as retirement: DeviceRecord.Retirement, answered: Bool) async throws(StoreError) {
        let now = clock.now()
        // The answer tells the device; the feed announces it to the console (and to no one else here).
        if answered { hub.answeredRetirement(of: device.token, true) }
        do {
            _ = try await store.retireDevice(device.token, as: retirement, at: now)
        } catch {
            if answered { hub.answeredRetirement(of: device.token, false) }
            throw error
        }
        var retired = device
        retired.retiredAt = now
        retired.retirement = retirement
        directory.remember(retired)
    }

    /// Subscribes the device to an app's channel: the channel must be live, the app's and this environment's (what
    /// APNs answers a broadcast to it otherwise, the device hears too), and the app registered on the device.
    private func subscribe(
        _ request: DeviceLinkMessage, topic: String, channelID: String, deviceID: String
    ) async throws(StoreError) -> DeviceLinkMessage {
        guard BroadcastChannel.token(forChannel: channelID) != nil, let channel = try await store.channel(id: channelID) else {
            return request.refused(reason: "BadChannelId", message: "no channel has the id \(channelID)")
        }
        guard channel.deletedAt == nil, channel.bundleID == topic, channel.environment == configuration.environment else {
            return request.refused(
                reason: "ChannelNotRegistered", message: "channel \(channelID) was deleted, or is another app's or environment's")
        }
        guard try await liveTokens(deviceID: deviceID).contains(where: { $0.kind == .app && $0.topic == topic }) else {
            return request.refused(reason: "NotRegistered", message: "register \(topic) before subscribing to its channels")
        }
        // In the hub first: a broadcast committed while the store writes is offered already.
        hub.subscribed(deviceID: deviceID, channelID: channelID)
        do {
            try await store.subscribe(ChannelSubscription(deviceID: deviceID, channelID: channelID, bundleID: topic, subscribedAt: clock.now()))
        } catch {
            hub.unsubscribed(deviceID: deviceID, channelID: channelID)
            throw error
        }
        if channel.storagePolicy == .mostRecentMessageStored, let link = hub.link(deviceID) {
            // After the answer: the channel's kept broadcast, if the device has not had it.
            Task { await self.offerKeptBroadcasts(to: link) }
        }
        return .subscribed(topic: topic, channelID: channelID)
    }

    /// The device's live tokens in this gateway's environment.
    func liveTokens(deviceID: String) async throws(StoreError) -> [DeviceRecord] {
        try await store.devices(owner: deviceID).filter { $0.retiredAt == nil && $0.environment == configuration.environment }
    }

    static func isValidActivityID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            }
    }
}
