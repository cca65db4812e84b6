import Foundation
public import HeraldStore
import HeraldWire
import Testing

/// The behaviour every ``Store`` must have. Each store's tests call ``run(_:)`` with a fresh store.
public enum StoreConformance {
    public static func run(_ store: any Store) async throws {
        try await keysRoundTrip(store)
        try await devicesRoundTrip(store)
        try await notificationsRoundTrip(store)
    }

    static func keysRoundTrip(_ store: any Store) async throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let key = ProviderKey(
            teamID: "TEAM123456", keyID: "KEY1234567", topics: ["com.example.a", "com.example.b"],
            environment: .development, publicKeyPEM: "PEM", createdAt: created
        )
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567") == nil)
        try await store.saveKey(key)
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567") == key)
        #expect(try await store.key(teamID: "OTHER00000", keyID: "KEY1234567") == nil)

        var revoked = key
        revoked.revokedAt = created.addingTimeInterval(60)
        try await store.saveKey(revoked)
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567") == revoked)

        let teamWide = ProviderKey(
            teamID: "TEAM123456", keyID: "KEY7654321", topics: [], environment: .production,
            publicKeyPEM: "PEM2", createdAt: created
        )
        try await store.saveKey(teamWide)
        #expect(try await store.keys() == [revoked, teamWide])
    }

    static func devicesRoundTrip(_ store: any Store) async throws {
        let token = DeviceToken.random()
        let device = DeviceRecord(token: token, topic: "com.example.a", environment: .development, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try await store.device(token) == nil)
        try await store.saveDevice(device)
        #expect(try await store.device(token) == device)

        let retiredAt = Date(timeIntervalSince1970: 1_700_000_500)
        #expect(try await store.retireDevice(token, as: .unregistered, at: retiredAt))
        let retired = try await store.device(token)
        #expect(retired?.retiredAt == retiredAt)
        #expect(retired?.retirement == .unregistered)
        #expect(try await store.retireDevice(DeviceToken.random(), as: .expired, at: retiredAt) == false)
    }

    static func notificationsRoundTrip(_ store: any Store) async throws {
        let before = try await store.notificationCount()
        let token = DeviceToken.random()
        let batch = (0..<250).map { index in
            StoredNotification(
                apnsID: UUID(), uniqueID: UUID(), deviceToken: token, bundleID: "com.example.a",
                topic: index.isMultiple(of: 2) ? "com.example.a" : "com.example.a.voip",
                pushType: index.isMultiple(of: 2) ? .alert : .voip, priority: .powerConsiderate,
                expiration: index.isMultiple(of: 3) ? nil : Int64(index), collapseID: index == 7 ? "c7" : nil,
                payload: Data(#"{"aps":{"alert":"n\#(index)"}}"#.utf8),
                receivedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
            )
        }
        try await store.insertNotifications(batch)
        #expect(try await store.notificationCount() == before + 250)
        for notification in [batch[0], batch[7], batch[249]] {
            #expect(try await store.notification(id: notification.apnsID) == notification)
            #expect(try await store.notification(id: notification.uniqueID) == notification)
        }
        #expect(try await store.notification(id: UUID()) == nil)
        try await store.insertNotifications([])
        try await store.maintain()
        #expect(try await store.notificationCount() == before + 250)
        #expect(try await store.notification(id: batch[100].uniqueID) == batch[100])
    }
}
