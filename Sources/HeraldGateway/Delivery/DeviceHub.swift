import HeraldStore
import Synchronization

/// The devices online on this gateway, one link each, and the hand-off of committed notifications to them.
final class DeviceHub: Sendable {
    private let links = Mutex<[String: DeviceLink]>([:])

    /// Makes `link` the device's link; returns the one it replaces (a device holds one link at a time).
    func attach(_ link: DeviceLink) -> DeviceLink? {
        links.withLock { links in
            defer { links[link.deviceID] = link }
            return links[link.deviceID]
        }
    }

    /// Forgets `link` if it is still the device's current one.
    func detach(_ link: DeviceLink) {
        links.withLock { links in
            if links[link.deviceID] === link { links[link.deviceID] = nil }
        }
    }

    func isOnline(_ deviceID: String) -> Bool {
        links.withLock { $0[deviceID] != nil }
    }

    var onlineDeviceIDs: Set<String> { links.withLock { Set($0.keys) } }

    /// Hands each pending notification whose device is online to its link, in commit order.
    func committed(_ notifications: [StoredNotification]) {
        var byLink: [(DeviceLink, StoredNotification)] = []
        links.withLock { links in
            // By index: `for notification in notifications` would copy every one, even those it skips.
            for index in notifications.indices where notifications[index].delivery.state == .pending {
                if let deviceID = notifications[index].deviceID, let link = links[deviceID] {
                    byLink.append((link, notifications[index]))
                }
            }
        }
        for (link, notification) in byLink { link.offer(notification) }
    }
}
