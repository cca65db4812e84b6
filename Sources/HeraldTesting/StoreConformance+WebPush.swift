import Foundation
import HeraldStore
import HeraldWire
import Testing

extension StoreConformance {
    /// Web Push (docs/web-push.md): a subscription keeps the key it was made with, virtual or registered by a linked
    /// browser (the same one again for the same name); a message keeps its details; a waiting message is replaced by one
    /// with the same topic for the same subscription, and only then; a retired subscription's messages are discarded.
    static func webPush(_ store: any Store) async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let key = Data([4] + (1...64).map { UInt8($0) })
        let virtual = DeviceRecord(
            token: .random(), topic: "web.example", environment: .development, createdAt: now, kind: .webPush, applicationServerKey: key)
        try await store.saveDevice(virtual)
        #expect(try await store.device(virtual.token) == virtual)
        let linked = try await store.register(
            owner: "browser-1", bundleID: "firefox", environment: .development, kind: .webPush, activityID: "channel-1",
            applicationServerKey: key, at: now)
        #expect(linked.applicationServerKey == key && linked.kind == .webPush && linked.activityID == "channel-1")
        let again = try await store.register(
            owner: "browser-1", bundleID: "firefox", environment: .development, kind: .webPush, activityID: "channel-1",
            applicationServerKey: nil, at: now)
        #expect(again == linked)

        func message(to device: DeviceRecord, topic: String?, at offset: TimeInterval) -> StoredNotification {
            StoredNotification(
                apnsID: UUID(), uniqueID: UUID(), deviceToken: device.token, deviceID: device.owner, bundleID: device.topic,
                topic: device.topic, pushType: .webPush, priority: .immediate, expiration: nil, collapseID: topic,
                payload: Data([0, 1, 2, 255]), receivedAt: now.addingTimeInterval(offset), offlinePolicy: device.owner.map { _ in .all(cap: 100) },
                webPush: WebPushDetails(urgency: .high, ttl: 60, subject: "mailto:ops@example.com"))
        }
        let first = try await store.insertNotifications([message(to: virtual, topic: "order42", at: 0)])[0]
        let other = try await store.insertNotifications([message(to: linked, topic: "order42", at: 1)])[0]
        let untopical = try await store.insertNotifications([message(to: virtual, topic: nil, at: 2)])[0]
        let second = try await store.insertNotifications([message(to: virtual, topic: "order42", at: 3)])[0]
        let read = { (notification: StoredNotification) in try #require(try await store.notification(id: notification.uniqueID)) }
        #expect(try await read(first).delivery.discardReason == .coalesced)
        #expect(try await read(second).delivery.state == .pending)
        #expect(try await read(untopical).delivery.state == .pending)
        #expect(try await read(other).delivery.state == .pending)  // another subscription's topic
        let kept = try await read(second)
        #expect(kept.webPush == WebPushDetails(urgency: .high, ttl: 60, subject: "mailto:ops@example.com"))
        #expect(kept.payload == Data([0, 1, 2, 255]) && kept.pushType == .webPush && kept.collapseID == "order42")
        // The same topic in one batch: the later one stays.
        let batch = try await store.insertNotifications([message(to: linked, topic: "t2x", at: 4), message(to: linked, topic: "t2x", at: 5)])
        #expect(try await read(batch[0]).delivery.discardReason == .coalesced)
        #expect(try await read(batch[1]).delivery.state == .pending)

        // A message of TTL 0 for a subscriber away is discarded as it comes, and replaces nothing.
        var nowOrNever = message(to: linked, topic: "t2x", at: 6)
        nowOrNever.expiration = 0
        let dropped = try await store.insertNotifications([nowOrNever])[0]
        #expect(try await read(dropped).delivery.discardReason == .expired)
        #expect(try await read(batch[1]).delivery.state == .pending)

        #expect(try await store.retireDevice(linked.token, as: .unregistered, at: now.addingTimeInterval(10)))
        #expect(try await read(batch[1]).delivery.discardReason == .unregistered)
        #expect(try await store.device(linked.token)?.retiredAt != nil)
    }
}
