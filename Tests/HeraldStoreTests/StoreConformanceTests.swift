import Foundation
import GRDB
import GRDBSQLite
import HeraldTesting
import HeraldWire
import Testing

@testable import HeraldStore

@Suite struct StoreConformanceTests {
    private static func temporaryPath() -> String {
        TemporaryPath.make("herald-store", suffix: ".sqlite")
    }

    @Test(arguments: StoreConformance.Behaviour.allCases)
    func sqliteStoreConforms(_ behaviour: StoreConformance.Behaviour) async throws {
        try await behaviour.check(SQLiteStore(path: Self.temporaryPath()))
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

    @Test func sqliteKeepsNoMemoryStatisticsWhenTheStoreComesFirst() async throws {
        let store = try SQLiteStore(path: Self.temporaryPath())
        _ = try await store.notificationCount()
        var current: sqlite3_int64 = 0
        var highest: sqlite3_int64 = 0
        #expect(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highest, 0) == SQLITE_OK)
        // With this suite alone (`swift test --filter StoreConformanceTests`) the store is SQLite's first user in the
        // process and switches the statistics off; in a full run another suite may come first, and they stay on.
        if SQLiteStore.memoryStatisticsOff {
            #expect(current == 0 && highest == 0)
        } else {
            #expect(current > 0)
        }
    }

    @Test func commitsAreSyncedToDisk() async throws {
        // A 200 promises the notification survives a power cut, not only a crash of the process: every commit
        // must sync the write-ahead log (FULL), which GRDB's own WAL set-up would lower to NORMAL.
        let store = try SQLiteStore(path: Self.temporaryPath())
        let writerMode = { try await store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } }
        #expect(try await writerMode() == 2)  // FULL
        // Delivery marks commit without a sync of their own, and leave the writer as they found it.
        let stored = try await store.insertNotifications(Self.largeNotifications(2, to: DeviceToken.random()))
        try await store.markDelivered(stored.compactMap(\.id), at: Date())
        #expect(try await writerMode() == 2)
        try await store.discardNotifications(stored.compactMap(\.id), reason: .expired, at: Date())
        #expect(try await writerMode() == 2)
    }

    @Test func anAppsPendingNotificationsAreFoundThroughTheDevicesIndex() async throws {
        // Storing for an offline device and unregistering an app run these for one app's pending notifications:
        // a scan of the table instead would cost every stored notification a read of the whole history.
        let store = try SQLiteStore(path: Self.temporaryPath())
        let plans = try await store.pool.read { db in
            let discard: StatementArguments = [0, "coalesced", "device", "token"]
            return try [
                (SQLiteStore.oldestKeptForApp, ["device", "token", 9, 3] as StatementArguments),
                (SQLiteStore.discardPendingForApp + " AND id < ?", discard + [9]),
                (SQLiteStore.discardPendingForApp, discard),
            ].map { sql, arguments in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                    .map { $0["detail"] as String }.joined(separator: "; ")
            }
        }
        for plan in plans {
            #expect(plan.contains("USING INDEX notification_pending_by_device"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }

    @Test func theLogStartsOverWhileWritesNeverPause() async throws {
        // A passive checkpoint beside back-to-back commits never catches up, so SQLite would never start the
        // log over and the file would grow by every commit. Past its frame limit, maintain() makes it start over.
        let path = Self.temporaryPath()
        let largestLog = try await Self.largestLog(of: try SQLiteStore(path: path, logFrameLimit: 64), at: path, commits: 500)
        // 2,000 notifications of 3 KB make about 25 MB of log when it never starts over; 64 frames are 264 KB, and
        // the log stays under 1 MB here unless the maintaining task is kept from running.
        #expect(largestLog > 0)
        #expect(largestLog < 6_000_000, "the log grew to \(largestLog) bytes")
    }

    /// The token index's fill runs at nice 10, so a saturated machine holds it back; the checkpoints must go on
    /// meanwhile, or the log grows with every commit.
    @Test func aStarvedTokenFillDoesNotHoldUpTheCheckpoints() async throws {
        let path = Self.temporaryPath()
        let store = try SQLiteStore(path: path, logFrameLimit: 64)
        // The housekeeping thread held, as a busy machine holds it: every fill maintain() starts waits behind this.
        let release = DispatchSemaphore(value: 0)
        #expect(store.housekeeping.submit { _ = release.wait(timeout: .now() + 20) })
        defer { release.signal() }
        let largestLog = try await Self.largestLog(of: store, at: path, commits: 500)
        #expect(largestLog > 0)
        #expect(largestLog < 6_000_000, "the log grew to \(largestLog) bytes")
    }

    /// Past 16 MiB on a roomy disk, past a quarter of the free space on a small one. Before that second bound,
    /// this burst's log filled the 16 MiB disk (three runs of three failed "full") with frames already copied into
    /// the database file.
    @Test(.enabled(if: SmallFilesystem.unavailableReason == nil, "mounting a tmpfs is not permitted here (needs root, as on CI)"))
    func theLogStaysWithinAQuarterOfTheFreeSpaceUnderBackToBackCommits() async throws {
        let disk = try SmallFilesystem(size: 16 << 20)
        defer { disk.unmount() }
        let path = disk.path + "/herald.sqlite"
        let freeAtStart = disk.available
        // The writer throws "the disk is full" if the log takes the space.
        let largestLog = try await Self.largestLog(of: try SQLiteStore(path: path), at: path, commits: 600)
        #expect(largestLog > 0)
        // About a quarter (3.4–4.0 MB here); the beat runs every 5 ms, so a busy machine may let it grow further.
        #expect(largestLog < freeAtStart / 2, "the log grew to \(largestLog) bytes of \(freeAtStart) free")
    }

    /// Commits `commits` batches of 4 large notifications back to back while another task runs `maintain()` every
    /// 5 ms, as the gateway's housekeeping does; returns the largest the log file got.
    private static func largestLog(of store: SQLiteStore, at path: String, commits: Int) async throws -> Int {
        let token = DeviceToken.random()
        return try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for _ in 0..<commits {
                    _ = try await store.insertNotifications(Self.largeNotifications(4, to: token))
                }
                return 0
            }
            group.addTask {
                var largest = 0
                while !Task.isCancelled {
                    do { try await store.maintain() } catch  where Task.isCancelled { break }  // GRDB interrupts it
                    largest = max(largest, Self.fileSize(path + "-wal"))
                    try? await Task.sleep(for: .milliseconds(5))
                }
                return largest
            }
            _ = try await group.next()  // the writer: the other task runs until cancelled
            group.cancelAll()
            return try await group.reduce(0, max)
        }
    }

    @Test func aLogABurstMadeLongIsCutBackWhenItStartsOver() async throws {
        let path = Self.temporaryPath()
        let store = try SQLiteStore(path: path, logFrameLimit: 64)
        let token = DeviceToken.random()
        for _ in 0..<100 {
            _ = try await store.insertNotifications(Self.largeNotifications(4, to: token))
        }
        let burst = Self.fileSize(path + "-wal")
        try await store.maintain()
        _ = try await store.insertNotifications(Self.largeNotifications(1, to: token))
        #expect(burst > 2_000_000)
        #expect(Self.fileSize(path + "-wal") <= 64 * 4096 * 2)
    }

    private static func largeNotifications(_ count: Int, to token: DeviceToken) -> [StoredNotification] {
        let payload = Data(#"{"aps":{"alert":"\#(String(repeating: "x", count: 3000))"}}"#.utf8)
        return (0..<count).map { _ in
            StoredNotification(
                apnsID: UUID(), uniqueID: UUID(), deviceToken: token, bundleID: "com.example.a", topic: "com.example.a",
                pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil, payload: payload, receivedAt: Date()
            )
        }
    }

    private static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test func twoHandlesOnOneFileSeeEachOthersWrites() async throws {
        // The CLI and a running gateway open the same file.
        let path = Self.temporaryPath()
        let gateway = try SQLiteStore(path: path)
        let cli = try SQLiteStore(path: path)
        try await cli.saveKey(
            ProviderKey(teamID: "TEAM123456", keyID: "KEY1234567", topics: [], environment: .development, publicKeyPEM: "P", createdAt: Date()))
        #expect(try await gateway.key(teamID: "TEAM123456", keyID: "KEY1234567") != nil)
    }

    @Test func unopenableFileIsUnavailable() {
        #expect(throws: StoreError.self) { try SQLiteStore(path: "/proc/no/such/dir/herald.sqlite") }
    }
}
