public import HeraldStore
import HeraldWire
import Synchronization

/// The devices online on this gateway, one link each, and the hand-off of committed notifications to them.
public final class DeviceHub: Sendable {
    private let links = Mutex<[String: DeviceLink]>([:])
    /// The devices linked here that take each channel's broadcasts.
    private let subscribers = Mutex(ChannelIndex())
    /// Tokens whose device asked to unregister them over its link and had its answer: not told again.
    private let answeredRetirements = Mutex<Set<DeviceToken>>([])
    /// Where devices coming and going are noted for the rest of a cluster.
    private let changes: LinkChanges?

    init(changes: LinkChanges? = nil) {
        self.changes = changes
    }

    /// Makes `link` the device's link, taking the broadcasts of `channels`; returns the one it replaces (a device holds
    /// one link at a time).
    func attach(_ link: DeviceLink, channels: Set<String> = []) -> DeviceLink? {
        subscribers.withLock { index in
            for channel in channels { index.add(link.deviceID, to: channel) }
        }
        return links.withLock { links in
            defer { links[link.deviceID] = link }
            changes?.note(link.deviceID, linked: true)  // under the lock: noted in the order the hub changed
            return links[link.deviceID]
        }
    }

    /// Forgets `link` if it is still the device's current one, with its subscriptions.
    func detach(_ link: DeviceLink) {
        let detached = links.withLock { links in
            guard links[link.deviceID] === link else { return false }
            links[link.deviceID] = nil
            changes?.note(link.deviceID, linked: false)
            return true
        }
        guard detached else { return }
        subscribers.withLock { $0.removeDevice(link.deviceID) }
    }

    /// The device takes the channel's broadcasts from now on.
    func subscribed(deviceID: String, channelID: String) {
        subscribers.withLock { $0.add(deviceID, to: channelID) }
    }

    func unsubscribed(deviceID: String, channelID: String) {
        subscribers.withLock { $0.remove(deviceID, from: channelID) }
    }

    /// The device's link, when it is linked here.
    func link(_ deviceID: String) -> DeviceLink? {
        links.withLock { $0[deviceID] }
    }

    func isOnline(_ deviceID: String) -> Bool {
        links.withLock { $0[deviceID] != nil }
    }

    var onlineDeviceIDs: Set<String> { links.withLock { Set($0.keys) } }

    var hasLinks: Bool { links.withLock { !$0.isEmpty } }

    /// Hands each pending notification whose device is online to its link, and each broadcast to the link of every
    /// device here that takes its channel, in commit order.
    func committed(_ notifications: [StoredNotification]) {
        var byLink: [(DeviceLink, StoredNotification)] = []
        var broadcasts: [Int] = []
        links.withLock { links in
            // By index: `for notification in notifications` would copy every one, even those it skips.
            for index in notifications.indices where notifications[index].delivery.state == .pending {
                if let deviceID = notifications[index].deviceID, let link = links[deviceID] {
                    byLink.append((link, notifications[index]))
                } else if notifications[index].channelID != nil {
                    broadcasts.append(index)
                }
            }
        }
        for (link, notification) in byLink { link.offer(notification) }
        for index in broadcasts { fanOut(notifications[index]) }
    }

    /// Offers a broadcast to the link of every device here subscribed to its channel.
    private func fanOut(_ broadcast: StoredNotification) {
        guard let channelID = broadcast.channelID else { return }
        let devices = subscribers.withLock { $0.devices(of: channelID) }
        guard !devices.isEmpty else { return }
        let targets = links.withLock { links in devices.compactMap { links[$0] } }
        for link in targets { link.offerBroadcast(broadcast) }
    }

    /// Notes that the device that holds `token` asked for its retirement and is answered (`unregistered`), or, with
    /// `false`, that the retirement failed after all.
    func answeredRetirement(of token: DeviceToken, _ answered: Bool) {
        answeredRetirements.withLock { if answered { $0.insert(token) } else { $0.remove(token) } }
    }

    /// Tells the device that held a retired token, when it is linked here and did not ask for the retirement itself:
    /// its app is unregistered (`{"type":"unregistered"}`), as a device's own request is answered.
    func retired(_ device: DeviceRecord) {
        guard answeredRetirements.withLock({ $0.remove(device.token) }) == nil, let owner = device.owner,
            let link = links.withLock({ $0[owner] })
        else { return }
        link.tell(.unregistered(topic: device.topic, deviceToken: device.token.hex, kind: device.kind, activityID: device.activityID))
    }

    /// Has every link read what is pending for it from the store again: commits went by that it was not offered.
    func resynchronize() {
        for link in links.withLock({ Array($0.values) }) { link.resynchronize() }
    }
}

extension DeviceHub {
    /// The devices online on this gateway and, when `store` is a cluster's, on every live node.
    public func onlineDeviceIDs(everywhereIn store: any Store) async throws(StoreError) -> Set<String> {
        guard let cluster = store as? any ClusterStore else { return onlineDeviceIDs }
        return try await onlineDeviceIDs.union(cluster.deviceLinks().map(\.deviceID))
    }
}

/// Which devices take which channels' broadcasts, both ways: a broadcast finds its devices, a device leaving finds its
/// channels, each without a scan.
struct ChannelIndex {
    private var devicesByChannel: [String: Set<String>] = [:]
    private var channelsByDevice: [String: Set<String>] = [:]

    func devices(of channel: String) -> Set<String> { devicesByChannel[channel] ?? [] }

    mutating func add(_ device: String, to channel: String) {
        devicesByChannel[channel, default: []].insert(device)
        channelsByDevice[device, default: []].insert(channel)
    }

    mutating func remove(_ device: String, from channel: String) {
        devicesByChannel[channel]?.remove(device)
        if devicesByChannel[channel]?.isEmpty == true { devicesByChannel[channel] = nil }
        channelsByDevice[device]?.remove(channel)
        if channelsByDevice[device]?.isEmpty == true { channelsByDevice[device] = nil }
    }

    mutating func removeDevice(_ device: String) {
        for channel in channelsByDevice[device] ?? [] { remove(device, from: channel) }
    }
}
