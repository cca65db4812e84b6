import Foundation
import GRDB
@testable import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

@Suite struct StoreConformanceTests {
    private static func temporaryPath() -> String {
        NSTemporaryDirectory() + "herald-store-\(UUID().uuidString).sqlite"
    }

    @Test func sqliteStoreConforms() async throws {
        try await StoreConformance.run(SQLiteStore(path: Self.temporaryPath()))
    }

    @Test func sqliteKeepsWhatWasCommittedAcrossReopening() async throws {
        let path = Self.temporaryPath()
        let token = DeviceToken.random()
        do {
            let store = try SQLiteStore(path: path)
            try await store.saveDevice(DeviceRecord(token: token, topic: "com.example.a", environment: .production, createdAt: Date()))
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.device(token)?.environment == .production)
    }

    @Test func commitsAreSyncedToDisk() async throws {
        // A 200 promises the notification survives a power cut, not only a crash of the process: every commit
        // must sync the write-ahead log (FULL), which GRDB's own WAL set-up would lower to NORMAL.
        let store = try SQLiteStore(path: Self.temporaryPath())
        let writerMode = try await store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(writerMode == 2)  // FULL
    }

    @Test func twoHandlesOnOneFileSeeEachOthersWrites() async throws {
        // The CLI and a running gateway open the same file.
        let path = Self.temporaryPath()
        let gateway = try SQLiteStore(path: path)
        let cli = try SQLiteStore(path: path)
        try await cli.saveKey(ProviderKey(teamID: "TEAM123456", keyID: "KEY1234567", topics: [], environment: .development, publicKeyPEM: "P", createdAt: Date()))
        #expect(try await gateway.key(teamID: "TEAM123456", keyID: "KEY1234567") != nil)
    }

    @Test func unopenableFileIsUnavailable() {
        #expect(throws: StoreError.self) { try SQLiteStore(path: "/proc/no/such/dir/herald.sqlite") }
    }
}
