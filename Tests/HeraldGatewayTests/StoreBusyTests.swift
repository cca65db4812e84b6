import Foundation
import GRDB
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// Another process holding the SQLite file (a CLI command, a backup, `sqlite3` with a transaction open) must not
/// hang providers: the gateway waits its store's busy timeout, then answers 503 ServiceUnavailable, and carries on
/// once the database is free.
@Suite struct StoreBusyTests {
    @Test func aDatabaseHeldByAnotherProcessGets503NotAHang() async throws {
        let path = TemporaryPath.make("herald-busy", suffix: ".sqlite")
        let store = try SQLiteStore(path: path, busyTimeout: .milliseconds(300))
        let gateway = try await TestGateway.start(store: store)
        let connection = try await gateway.connect()
        #expect(try await connection.send(try await gateway.push()).status == 200)

        let push = try await gateway.push()
        let other = try Self.anotherProcess(path)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let started = ContinuousClock.now
        let refused = try await connection.send(push)
        #expect(refused.status == 503)
        #expect(refused.reason == .serviceUnavailable)
        // GRDB's default busy timeout held requests for 10 s and then answered 500.
        #expect(ContinuousClock.now - started < .seconds(5))

        try await other.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        #expect(try await connection.send(push).status == 200)
        #expect(try await store.notificationCount() == 2)
        try await gateway.stop()
    }

    @Test func busyIsItsOwnStoreError() async throws {
        let path = TemporaryPath.make("herald-busy", suffix: ".sqlite")
        let store = try SQLiteStore(path: path, busyTimeout: .milliseconds(50))
        let other = try Self.anotherProcess(path)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let error = await #expect(throws: StoreError.self) {
            try await store.setStoragePolicy(.all(cap: 10), bundleID: "com.example.app")
        }
        #expect(error?.code == .busy)
        #expect(error?.message.contains("another process holds the database") == true)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        try await store.setStoragePolicy(.all(cap: 10), bundleID: "com.example.app")
    }

    /// A connection of its own to the file, which may hold a transaction open between calls as `sqlite3` does.
    static func anotherProcess(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
