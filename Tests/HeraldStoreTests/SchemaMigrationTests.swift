import Foundation
import GRDB
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// A data dir from each past schema version opens with today's code: its rows survive and its schema is brought
/// up to date. The fixtures are made by `Fixtures/make-fixtures.py` from the migrations in git history.
@Suite struct SchemaMigrationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let apnsID = UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!

    /// A copy of the fixture in a temporary file: migrating writes to it.
    static func copy(_ fixture: String) throws -> String {
        let path = TemporaryPath.make("herald-\(fixture)", suffix: ".sqlite")
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(fixture + ".sqlite").path, toPath: path)
        return path
    }

    @Test(arguments: ["gateway-v1", "gateway-v2", "gateway-v3", "gateway-v4"])
    func aGatewayStoreFromAPastVersionMigratesAndKeepsItsData(_ fixture: String) async throws {
        let path = try Self.copy(fixture)
        let store = try SQLiteStore(path: path)

        let notification = try #require(try await store.notification(id: Self.apnsID))
        #expect(notification.payload == Data(#"{"aps":{"alert":"kept"}}"#.utf8))
        #expect(notification.deviceToken.hex == String(repeating: "ab", count: 32))
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567") != nil)
        #expect(try await store.device(try #require(DeviceToken(hex: String(repeating: "ab", count: 32)))) != nil)
        if fixture != "gateway-v1" {
            #expect(try await store.storagePolicy(bundleID: "com.example.app") == .all(cap: 50))
            #expect(try await store.pendingNotifications(deviceID: "device-1", after: 0, limit: 10).map(\.apnsID) == [Self.apnsID])
        }
        // Today's writes work on it: a response (v4's columns) is recorded.
        #expect(
            try await store.recordResponse(NotificationResponse(action: "open", at: Date()), uniqueID: notification.uniqueID, deviceID: "device-1")
                == (fixture != "gateway-v1"))

        let database = try DatabaseQueue(path: path)
        let applied = try await database.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
        #expect(
            applied == [
                "v1", "v2: devices, apps, delivery", "v3: one pending index", "v4: responses", "v5: retirements in order", "v6: broadcast channels",
                "v7: token kinds and channel subscriptions", "v8: fault rules", "v9: web push",
            ])
        // v7: the fixture's tokens are apps' own, and a device takes subscriptions.
        #expect(try await store.device(try #require(DeviceToken(hex: String(repeating: "ab", count: 32))))?.kind == .app)
        try await store.subscribe(ChannelSubscription(deviceID: "device-1", channelID: "c", bundleID: "com.example.app", subscribedAt: Date()))
        #expect(try await store.subscriptions(deviceID: "device-1").map(\.channelID) == ["c"])
        // v6's table takes channels.
        let channel = BroadcastChannel(
            bundleID: "com.example.app", environment: .development, storagePolicy: .noMessageStored,
            createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(try await store.createChannel(channel, limit: 1))
        #expect(try await store.channel(id: channel.id) == channel)
        // A token retired after the migration is numbered; the fixture's own were announced in their day.
        #expect(try await store.latestRetirement() == 0)
        #expect(try await store.retireDevice(try #require(DeviceToken(hex: String(repeating: "ab", count: 32))), as: .unregistered, at: Date()))
        #expect(try await store.retirements(after: 0, limit: 10).map(\.sequence) == [1])
        let indexes = try await database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        }
        #expect(!indexes.contains("notification_pending_by_token"), "v3 dropped it")
        #expect(indexes.contains("notification_pending_by_device"))
    }
}
