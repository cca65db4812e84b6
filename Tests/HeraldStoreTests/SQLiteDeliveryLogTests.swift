import Foundation
import GRDB
import HeraldTesting
import HeraldWire
import Testing

@testable import HeraldStore

/// How the SQLite store finds the delivery log's pages: by index ranges only, so a page costs the same with a
/// million notifications stored (`herald-bench log` measures it).
@Suite struct SQLiteDeliveryLogTests {
    private static func temporaryStore() throws -> SQLiteStore {
        try SQLiteStore(path: TemporaryPath.make("herald-log", suffix: ".sqlite"))
    }

    @Test func everyPageIsFoundThroughAnIndexRange() async throws {
        let store = try Self.temporaryStore()
        let uuid = Data(count: 16)
        let statements: [(sql: String, arguments: StatementArguments, search: String)] = [
            (SQLiteStore.logPage, [9, 50], "notification USING INTEGER PRIMARY KEY"),
            (SQLiteStore.logByAPNsID, [uuid, 9, 50], "notification USING INDEX notification_apns_id"),
            (SQLiteStore.logByUniqueID, [uuid, 9], "notification USING INDEX notification_unique_id"),
            (SQLiteStore.logIDsNotYetIndexed, [5, 9, "ab", "ac", 50], "notification USING INTEGER PRIMARY KEY"),
            (SQLiteStore.firstTokenInRange, ["ab", "ac"], "token_log USING PRIMARY KEY"),
            (SQLiteStore.nextTokenInRange, ["ab", "ac"], "token_log USING PRIMARY KEY"),
            (SQLiteStore.logIDsForToken, ["ab", 9, 0, 50], "token_log USING PRIMARY KEY"),
            (SQLiteStore.logIDsInRange, ["ab", "ac", 9, 50], "token_log USING PRIMARY KEY"),
            (SQLiteStore.logRow, [9], "notification USING INTEGER PRIMARY KEY"),
        ]
        // The token log's statements run on its own file.
        let plans = try await statements.asyncMap { statement in
            try await (statement.search.hasPrefix("token_log") ? store.tokenLog.pool : store.pool).read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map { $0["detail"] as String }
            }
        }
        for (statement, plan) in zip(statements, plans) {
            // "SEARCH": a range of an index; "SCAN" would read the whole table (or a whole index).
            #expect(plan.first?.hasPrefix("SEARCH \(statement.search) (") == true, "\(statement.sql): \(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(statement.sql): \(plan)")
            // Only the budget's fallback sorts, and only the ids of its range (a top-N sort).
            if statement.sql != SQLiteStore.logIDsInRange {
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(statement.sql): \(plan)")
            }
        }
    }

    @Test func aPrefixOverMoreTokensThanTheBudgetFindsTheSamePage() async throws {
        let store = try Self.temporaryStore()
        let tokens = (0..<12).map { DeviceToken(bytes: [0xab, UInt8($0)] + (0..<30).map { _ in UInt8.random(in: 0...255) }) }
        let other = DeviceToken(bytes: [0xac] + (0..<31).map { _ in 0 })
        for round in 0..<10 {
            // Half the rows reach token_log (as the gateway's maintenance beat puts them there); the rest are found in
            // the table's newest rows.
            if round == 5 { try await store.indexTokens() }
            // Tokens take turns unevenly, so a page's newest come from several of them.
            let batch = (0..<24).map { index in
                StoredNotification(
                    apnsID: UUID(), uniqueID: UUID(), deviceToken: index % 5 == 0 ? other : tokens[(index * (round + 1)) % tokens.count],
                    bundleID: "com.example.log", topic: "com.example.log", pushType: .alert, priority: .immediate, expiration: nil,
                    collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
            }
            _ = try await store.insertNotifications(batch)
        }
        let range = try #require(TokenRange(prefix: "ab"))
        for (before, limit) in [(Int64.max, 50), (Int64.max, 7), (200, 7), (100, 1), (20, 50)] {
            let walked = try await store.logIDs(in: range, before: before, limit: limit)
            let budgeted = try await store.logIDs(in: range, before: before, limit: limit, tokenBudget: 2)
            let everything = try await store.pool.read { db in
                try Int64.fetchAll(
                    db, sql: "SELECT id FROM notification WHERE device_token LIKE 'ab%' AND id < ? ORDER BY id DESC", arguments: [before])
            }
            #expect(walked == Array(everything.prefix(limit)), "before \(before), \(limit) a page")
            #expect(budgeted == walked, "before \(before), \(limit) a page")
        }
    }

    /// Maintenance indexes what was committed since it last ran, and a search finds the same before and after.
    @Test func maintenanceIndexesNewTokensAndSearchesDoNotChange() async throws {
        let store = try Self.temporaryStore()
        let token = DeviceToken(bytes: [0xcd] + (0..<31).map { _ in UInt8.random(in: 0...255) })
        let batch = (0..<30).map { _ in
            StoredNotification(
                apnsID: UUID(), uniqueID: UUID(), deviceToken: token, bundleID: "com.example.log", topic: "com.example.log",
                pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
        }
        let ids = try await store.insertNotifications(batch).compactMap(\.id).reversed().map { $0 }
        let search = { try await store.notifications(matching: .deviceTokenPrefix("cd"), before: nil, limit: 20).compactMap(\.id) }
        let reach = {
            try await store.tokenLog.pool.read { db in
                (try Int64.fetchOne(db, sql: TokenLog.indexedUpTo), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM token_log"))
            }
        }
        let (indexed, logged) = try await reach()
        #expect(indexed == 0 && logged == 0)
        #expect(try await search() == Array(ids.prefix(20)))
        // maintain() starts the fill and does not wait for it: it completes on the housekeeping thread by itself.
        try await store.maintain()
        let deadline = ContinuousClock.now + .seconds(10)
        while try await reach().0 != ids.first, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let (after, count) = try await reach()
        #expect(after == ids.first && count == 30)
        #expect(try await search() == Array(ids.prefix(20)))
    }

    /// A fill that fails (here its table is gone) is not waited for, so the next maintain() says so.
    @Test func aFailedFillIsThrownByTheNextMaintenance() async throws {
        let store = try Self.temporaryStore()
        _ = try await store.insertNotifications([
            StoredNotification(
                apnsID: UUID(), uniqueID: UUID(), deviceToken: DeviceToken(bytes: Array(repeating: 7, count: 32)),
                bundleID: "com.example.log", topic: "com.example.log", pushType: .alert, priority: .immediate, expiration: nil,
                collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
        ])
        try await store.tokenLog.pool.write { db in try db.execute(sql: "DROP TABLE token_log") }
        try await store.maintain()  // starts the fill, which fails on its own thread
        await #expect(throws: StoreError.self) { try await store.indexTokens() }  // queued behind it: it has ended
        let error = await #expect(throws: StoreError.self) { try await store.maintain() }
        #expect(error?.message.contains("index the delivery log's device tokens") == true, "\(String(describing: error))")
    }

    /// The token log's writer keeps its large page cache (the fills touch most of the index once tokens are many);
    /// a reader keeps the library's default, whatever this SQLite's is.
    @Test func theTokenLogsWriterKeepsALargePageCache() async throws {
        let store = try Self.temporaryStore()
        let writer = try await store.tokenLog.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        let reader = try await store.tokenLog.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        #expect(writer == -TokenLog.writerCacheKiB)
        #expect(reader != writer)
    }

    /// A token log that reaches past the store (the store restored from an older copy) is filled again from the start,
    /// so it never names notifications the store does not have.
    @Test func aTokenLogAheadOfTheStoreStartsOver() async throws {
        let store = try Self.temporaryStore()
        let make = { (byte: UInt8) in
            StoredNotification(
                apnsID: UUID(), uniqueID: UUID(), deviceToken: DeviceToken(bytes: [byte] + Array(repeating: 1, count: 31)),
                bundleID: "com.example.log", topic: "com.example.log", pushType: .alert, priority: .immediate, expiration: nil,
                collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
        }
        _ = try await store.insertNotifications((0..<5).map { _ in make(0xaa) })
        try await store.indexTokens()
        try await store.pool.write { db in try db.execute(sql: "DELETE FROM notification") }
        let fresh = try await store.insertNotifications([make(0xbb)])
        try await store.indexTokens()
        #expect(try await store.notifications(matching: .deviceTokenPrefix("aa"), before: nil, limit: 10).isEmpty)
        #expect(try await store.notifications(matching: .deviceTokenPrefix("bb"), before: nil, limit: 10).map(\.id) == fresh.map(\.id))
    }

    @Test func aPrefixRangeEndsWhereThePrefixStopsMatching() throws {
        #expect(TokenRange(prefix: "ab9f").map { [$0.lower, $0.upper] } == ["ab9f", "ab9g"])
        #expect(TokenRange(prefix: "ab9").map { [$0.lower, $0.upper] } == ["ab9", "ab:"])
        #expect(TokenRange(prefix: "0").map { [$0.lower, $0.upper] } == ["0", "1"])
        for bad in ["", "AB", "ab-", "g", String(repeating: "f", count: 401)] {
            #expect(TokenRange(prefix: bad) == nil, "\(bad)")
        }
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
