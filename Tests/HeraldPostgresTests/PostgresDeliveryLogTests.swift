import Foundation
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import PostgresNIO
import Testing

@testable import HeraldPostgres

/// How the PostgreSQL store finds the delivery log's pages and an app's pending notifications: through index ranges
/// only, so that their cost does not grow with the notifications stored.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct PostgresDeliveryLogTests {
    /// The statements of a page of each kind, with their arguments (a 64-digit token of the filled table, an apns-id).
    /// Pages of 4, full with the fewer notifications too (5 a token): a page costs a heap page a row.
    private static func pages(token: String, apnsID: Data) -> [(name: String, sql: String, binds: PostgresBindings)] {
        let (max, limit) = (Int64.max, 4)
        return [
            ("every notification", PostgresStore.logPage, PostgresBindings(max, limit)),
            ("by id", PostgresStore.logByID, PostgresBindings(ByteBuffer(bytes: apnsID), max, limit)),
            ("one token", PostgresStore.logByTokenRange, PostgresBindings(token, token + "g", max, limit, 1_000)),
            ("a prefix of many tokens", PostgresStore.logByTokenRange, PostgresBindings("a", "b", max, limit, 1_000)),
            ("a prefix past the budget", PostgresStore.logByTokenRange, PostgresBindings("a", "b", max, limit, 10)),
            ("a page further down", PostgresStore.logByTokenRange, PostgresBindings("a", "b", Int64(2_000), limit, 1_000)),
        ]
    }

    /// The statements `herald_insert_notifications` runs for an app's pending notifications (discarding the older,
    /// the same collapse id, the overflow; finding the oldest kept), read from the function with its variables as
    /// values, and the statements a device's link and a retirement run.
    private static func pendingStatements() throws -> [(name: String, sql: String)] {
        let values = [
            (" INTO _oldest_kept", ""), ("_kept.device_id", "'device-7'"), ("_kept.device_token", "'\(token(7))'"), ("_kept.id", "90000"),
            ("_kept.received_at", "0"), ("_kept.collapse_id", "'c'"), ("_kept.cap", "3"), ("_oldest_kept", "89000"),
        ]
        let function = PostgresSchema.insertFunction
        var statements: [(String, String)] = []
        for start in ["UPDATE notification SET", "SELECT id INTO _oldest_kept"] {
            var rest = function[...]
            while let found = rest.range(of: start) {
                let end = try #require(rest[found.lowerBound...].firstIndex(of: ";"))
                var sql = String(rest[found.lowerBound..<end])
                for (variable, value) in values { sql = sql.replacingOccurrences(of: variable, with: value) }
                statements.append(("the function: \(sql.prefix(40))…", sql))
                rest = rest[end...]
            }
        }
        #expect(statements.count == 4)
        return statements + [
            (
                "a device's pending",
                """
                SELECT id FROM notification WHERE device_id = 'device-7' AND state = 'pending' AND device_id IS NOT NULL AND id > 0
                ORDER BY id LIMIT 100
                """
            )
        ]
    }

    /// A device token of the filled table: one of 1,600, 64 hex digits, spread over every first digit.
    private static func token(_ number: Int) -> String {
        String(repeating: String(format: "%08x", UInt32(truncatingIfNeeded: number &* 2_654_435_761)), count: 8)
    }

    /// Adds `count` notifications after `first` straight in SQL: 1,600 tokens of 800 devices, one in ten pending.
    private static func fill(_ database: PostgresTestDatabase, from first: Int, count: Int) async throws {
        _ = try await database.query(
            """
            INSERT INTO notification (id, apns_id, unique_id, device_token, device_id, bundle_id, topic, push_type, priority,
                payload, received_at, state)
            SELECT g, uuid_send(gen_random_uuid()), uuid_send(gen_random_uuid()),
                   repeat(lpad(to_hex(((g % 1600) * 2654435761::bigint) % 4294967296), 8, '0'), 8),
                   'device-' || (g % 800), 'com.example.log', 'com.example.log', 'alert', 10, '\\x7b7d'::bytea,
                   1700000000 + g, CASE WHEN g % 10 = 0 THEN 'pending' ELSE 'delivered' END
            FROM generate_series(\(first + 1), \(first + count)) AS g
            """)
        _ = try await database.query("SELECT setval('notification_id', \(first + count))")
        _ = try await database.query("ANALYZE notification")
    }

    /// Each statement's plan and the buffers it touched (shared hits and reads, all nodes), run in a transaction that
    /// is rolled back.
    private static func explain(
        _ statements: [(name: String, sql: String, binds: PostgresBindings)], in database: PostgresTestDatabase
    ) async throws -> [String: (plan: String, buffers: Int)] {
        try await database.withConnection { connection in
            var explained: [String: (plan: String, buffers: Int)] = [:]
            for statement in statements {
                _ = try await connection.query("BEGIN", logger: PostgresTesting.logger).collect()
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) " + statement.sql, binds: statement.binds),
                    logger: PostgresTesting.logger
                ).collect()
                _ = try await connection.query("ROLLBACK", logger: PostgresTesting.logger).collect()
                let lines = try rows.map { try $0.decode(String.self) }
                // The first Buffers line is the top node's, which counts its children's.
                let buffers = lines.first { $0.contains("Buffers:") }.map { line in
                    ["hit=", "read="].reduce(0) { total, key in
                        total + (line.range(of: key).map { Int(line[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0)
                    }
                }
                explained[statement.name] = (lines.joined(separator: "\n"), buffers ?? 0)
            }
            return explained
        }
    }

    /// Every page, and what an app has pending, is found through index ranges, and costs about as many buffers with
    /// five times the notifications (a scan would cost five times as many).
    @Test func pagesCostTheSameHoweverManyNotificationsAreStored() async throws {
        try await PostgresTesting.withStore { _, database in
            try await Self.fill(database, from: 0, count: 8_000)
            let apnsID = try #require(try await database.query("SELECT apns_id FROM notification WHERE id = 1234").first?.decode(Data.self))
            let statements =
                Self.pages(token: Self.token(7), apnsID: apnsID)
                + (try Self.pendingStatements().map { ($0.name, $0.sql, PostgresBindings()) })
            let small = try await Self.explain(statements, in: database)
            try await Self.fill(database, from: 8_000, count: 32_000)
            let large = try await Self.explain(statements, in: database)
            for statement in statements {
                let (plan, buffers) = try #require(large[statement.name])
                #expect(!plan.contains("Seq Scan"), "\(statement.name):\n\(plan)")
                #expect(plan.contains("Index"), "\(statement.name):\n\(plan)")
                let before = try #require(small[statement.name]).buffers
                #expect(buffers <= max(2 * before, 60), "\(statement.name): \(before) buffers, then \(buffers) with 5× the rows:\n\(plan)")
            }
            for name in ["one token", "a prefix of many tokens", "a page further down"] {
                #expect(try #require(large[name]).plan.contains("notification_token"), "\(name)")
            }
            for (name, _) in try Self.pendingStatements() {
                #expect(try #require(large[name]).plan.contains("notification_pending_by_device"), "\(name)")
            }
        }
    }

    /// Past the token budget the page is taken from the whole range at once, and is the same page.
    @Test func aPrefixOverMoreTokensThanTheBudgetFindsTheSamePage() async throws {
        try await PostgresTesting.withStore { store, database in
            let tokens = (0..<12).map { DeviceToken(bytes: [0xab, UInt8($0)] + (0..<30).map { _ in UInt8.random(in: 0...255) }) }
            let other = DeviceToken(bytes: [0xac] + (0..<31).map { _ in 0 })
            for round in 0..<10 {
                let batch = (0..<24).map { index in
                    StoredNotification(
                        apnsID: UUID(), uniqueID: UUID(), deviceToken: index % 5 == 0 ? other : tokens[(index * (round + 1)) % tokens.count],
                        bundleID: "com.example.log", topic: "com.example.log", pushType: .alert, priority: .immediate, expiration: nil,
                        collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
                }
                _ = try await store.insertNotifications(batch)
            }
            for (before, limit) in [(Int64?.none, 50), (nil, 7), (200, 7), (100, 1), (20, 50)] {
                let walked = try await store.notifications(matching: .deviceTokenPrefix("ab"), before: before, limit: limit).compactMap(\.id)
                let budgeted = try await store.notifications(matching: .deviceTokenPrefix("ab"), before: before, limit: limit, tokenBudget: 2)
                    .compactMap(\.id)
                let everything = try await database.query(
                    "SELECT id FROM notification WHERE device_token LIKE 'ab%' AND id < $1 ORDER BY id DESC", PostgresBindings(before ?? .max)
                ).map { try $0.decode(Int64.self) }
                #expect(walked == Array(everything.prefix(limit)), "before \(before ?? 0), \(limit) a page")
                #expect(budgeted == walked, "before \(before ?? 0), \(limit) a page")
            }
        }
    }
}
