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
        let statements: [(sql: String, arguments: StatementArguments, index: String)] = [
            (SQLiteStore.logPage, [9, 50], "INTEGER PRIMARY KEY"),
            (SQLiteStore.logByAPNsID, [uuid, 9, 50], "INDEX notification_apns_id"),
            (SQLiteStore.logByUniqueID, [uuid, 9], "INDEX notification_unique_id"),
            (SQLiteStore.firstTokenInRange, ["ab", "ac"], "COVERING INDEX notification_by_token"),
            (SQLiteStore.nextTokenInRange, ["ab", "ac"], "COVERING INDEX notification_by_token"),
            (SQLiteStore.logIDsForToken, ["ab", 9, 0, 50], "COVERING INDEX notification_by_token"),
            (SQLiteStore.logIDsInRange, ["ab", "ac", 9, 50], "COVERING INDEX notification_by_token"),
            (SQLiteStore.logRow, [9], "INTEGER PRIMARY KEY"),
        ]
        let plans = try await store.pool.read { db in
            try statements.map { statement in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments).map { $0["detail"] as String }
            }
        }
        for (statement, plan) in zip(statements, plans) {
            // "SEARCH": a range of an index; "SCAN" would read the whole table (or a whole index).
            #expect(plan.first?.hasPrefix("SEARCH notification USING \(statement.index) (") == true, "\(statement.sql): \(plan)")
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
            // Tokens take turns unevenly, so a page's newest come from several of them.
            let batch = (0..<24).map { index in
                StoredNotification(
                    apnsID: UUID(), uniqueID: UUID(), deviceToken: index % 5 == 0 ? other : tokens[(index * (round + 1)) % tokens.count],
                    bundleID: "com.example.log", topic: "com.example.log", pushType: .alert, priority: .immediate, expiration: nil,
                    collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
            }
            _ = try await store.insertNotifications(batch)
        }
        let range = try #require(SQLiteStore.TokenRange(prefix: "ab"))
        for (before, limit) in [(Int64.max, 50), (Int64.max, 7), (200, 7), (100, 1), (20, 50)] {
            let (walked, budgeted, everything) = try await store.pool.read { db in
                (
                    try SQLiteStore.logIDs(in: range, before: before, limit: limit, db),
                    try SQLiteStore.logIDs(in: range, before: before, limit: limit, tokenBudget: 2, db),
                    try Int64.fetchAll(
                        db, sql: "SELECT id FROM notification WHERE device_token LIKE 'ab%' AND id < ? ORDER BY id DESC", arguments: [before])
                )
            }
            #expect(walked == Array(everything.prefix(limit)), "before \(before), \(limit) a page")
            #expect(budgeted == walked, "before \(before), \(limit) a page")
        }
    }

    @Test func aPrefixRangeEndsWhereThePrefixStopsMatching() throws {
        #expect(SQLiteStore.TokenRange(prefix: "ab9f").map { [$0.lower, $0.upper] } == ["ab9f", "ab9g"])
        #expect(SQLiteStore.TokenRange(prefix: "ab9").map { [$0.lower, $0.upper] } == ["ab9", "ab:"])
        #expect(SQLiteStore.TokenRange(prefix: "0").map { [$0.lower, $0.upper] } == ["0", "1"])
        for bad in ["", "AB", "ab-", "g", String(repeating: "f", count: 401)] {
            #expect(SQLiteStore.TokenRange(prefix: bad) == nil, "\(bad)")
        }
    }
}
