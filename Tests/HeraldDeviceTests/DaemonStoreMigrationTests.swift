import Foundation
import GRDB
import HeraldDevice
import HeraldTesting
import Testing
import UserNotifications

/// The daemon's store from each past schema version opens with today's code, keeping its rows. The fixtures are
/// made by `Tests/HeraldStoreTests/Fixtures/make-fixtures.py` from the migrations in git history.
@Suite struct DaemonStoreMigrationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test(arguments: ["daemon-v1", "daemon-v2"])
    func aDaemonStoreFromAPastVersionMigratesAndKeepsItsData(_ fixture: String) async throws {
        let path = TemporaryPath.make("herald-\(fixture)", suffix: ".sqlite")
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(fixture + ".sqlite").path, toPath: path)
        let store = try NotificationStore(path: path, owner: .daemonQueues)
        #expect(store.movedAside == nil, "a past version is migrated, never moved aside as unreadable")
        // Today's inbox works on it.
        let item = NotificationStore.InboxItem(
            apnsID: "new", bundleID: "com.example.app", identifier: "new", payload: Data("{}".utf8), receivedAt: Date())
        #expect(try store.receive(item))

        let database = try DatabaseQueue(path: path)
        try await database.read { db in
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") == ["v1", "v2", "v2-daemon"])
            #expect(try Int.fetchOne(db, sql: "SELECT badge FROM app WHERE bundle_id = 'com.example.app'") == 3)
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM delivered") == ["kept"])
            let inbox = try String.fetchAll(db, sql: "SELECT apns_id FROM inbox ORDER BY apns_id")
            #expect(inbox == (fixture == "daemon-v1" ? ["new"] : ["0123", "new"]))
        }
    }
}
