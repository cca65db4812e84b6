import Foundation
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import PostgresNIO
import Testing

@testable import HeraldPostgres

/// How the PostgreSQL store commits: inserts durable whatever the session's default, delivery marks not waiting for
/// the disk, conflicts said as such, and its commit notices.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct PostgresCommitTests {
    private static func notification(uniqueID: UUID = UUID()) -> StoredNotification {
        StoredNotification(
            apnsID: UUID(), uniqueID: uniqueID, deviceToken: DeviceToken.random(), bundleID: "com.example.commit", topic: "com.example.commit",
            pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
    }

    /// The `synchronous_commit` a statement leaves its transaction with, when the database's default is off.
    private static func synchronousCommit(after sql: String, _ binds: PostgresBindings, in database: PostgresTestDatabase) async throws -> String {
        try await database.withConnection { connection in
            let logger = PostgresTesting.logger
            _ = try await connection.query("BEGIN", logger: logger).collect()
            _ = try await connection.query("SET LOCAL synchronous_commit = off", logger: logger).collect()
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect()
            let setting = try await connection.query("SHOW synchronous_commit", logger: logger).collect().first?.decode(String.self)
            _ = try await connection.query("ROLLBACK", logger: logger).collect()
            return setting ?? ""
        }
    }

    /// A 200 means durable: an insert's commit waits for the disk even where the session's default says not to; delivery
    /// marks (which a crash may lose) do not wait.
    @Test func insertsAreSynchronousAndDeliveryMarksAreNot() async throws {
        try await PostgresTesting.withStore { store, database in
            let ids = try await store.insertNotifications([Self.notification(), Self.notification()]).compactMap(\.id)
            let insert = PostgresBindings(
                "node", ArrayParameter.bytea([UUID().bytes]), ArrayParameter.bytea([UUID().bytes]),
                ArrayParameter.text([DeviceToken.random().hex]), ArrayParameter.text([nil]), ArrayParameter.text(["b"]), ArrayParameter.text(["b"]),
                ArrayParameter.text(["alert"]), ArrayParameter.int4([10]), ArrayParameter.int8([nil]), ArrayParameter.text([nil]),
                ArrayParameter.bytea([Data("{}".utf8)]), ArrayParameter.float8([0]), ArrayParameter.text([nil]), ArrayParameter.int4([nil]),
                ArrayParameter.text(["pending"]), ArrayParameter.float8([0]), ArrayParameter.float8([nil]), ArrayParameter.text([nil]))
            #expect(try await Self.synchronousCommit(after: PostgresStore.InsertForm.plain.statement, insert, in: database) == "on")
            #expect(try await Self.synchronousCommit(after: PostgresStore.markDelivered, PostgresBindings(ids, 0.0), in: database) == "off")
            #expect(try await Self.synchronousCommit(after: PostgresStore.discard, PostgresBindings(ids, 0.0, "expired"), in: database) == "off")
            // What the database's sessions start with is untouched.
            let settings = try await database.query("SHOW synchronous_commit").map { try $0.decode(String.self) }
            #expect(settings == ["on"])
        }
    }

    @Test func aUniqueIDTakenAlreadyIsAConflictAndNothingOfTheBatchIsStored() async throws {
        try await PostgresTesting.withStore { store, _ in
            let taken = UUID()
            _ = try await store.insertNotifications([Self.notification(uniqueID: taken)])
            let error = await #expect(throws: StoreError.self) {
                try await store.insertNotifications([Self.notification(), Self.notification(uniqueID: taken)])
            }
            #expect(error?.code == .conflict)
            #expect(error?.message.contains("duplicate key value violates unique constraint") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(taken.uuidString.prefix(8).lowercased()) == false)
            #expect(try await store.notificationCount() == 1)
            // Ids stay contiguous within each commit; a failed one leaves a gap at most.
            let next = try await store.insertNotifications([Self.notification(), Self.notification()]).compactMap(\.id)
            #expect(next.count == 2 && next[1] == next[0] + 1)
        }
    }

    /// Each call has a stream of its own; all end when the store closes, and calls fail after.
    @Test func everyStreamHearsEveryCommitUntilTheStoreCloses() async throws {
        try await PostgresTesting.withDatabase { database, makeStore in
            let store = try await makeStore("node-one")
            let logs = [CommitNoticeLog(store.commitNotices()), CommitNoticeLog(store.commitNotices())]
            for log in logs { #expect(await log.first(1) == [.resynchronize]) }
            let id = try #require(try await store.insertNotifications([Self.notification()]).first?.id)
            for log in logs { #expect(await log.first(2) == [.resynchronize, .committed(nodeID: "node-one", ids: id...id)]) }
            await store.close()
            for log in logs {
                #expect(await log.finished())
                #expect(log.heard.count == 2)
            }
            let error = await #expect(throws: StoreError.self) { try await store.keys() }
            #expect(error?.code == .unavailable && error?.message == "cannot read keys: the store is closed")
            var afterClose = store.commitNotices().makeAsyncIterator()
            #expect(await afterClose.next() == nil)
        }
    }

    @Test func commitNoticePayloadsAreRead() {
        #expect(CommitNotice(payload: "node-1 5 9") == .committed(nodeID: "node-1", ids: 5...9))
        #expect(CommitNotice(payload: "gateway a:2197 12 12") == .committed(nodeID: "gateway a:2197", ids: 12...12))
        for bad in ["", "node 5", "node five 9", "node 9 5", "5 9"] {
            #expect(CommitNotice(payload: bad) == nil, "\(bad)")
        }
    }
}

/// No level of logging shows what a notification holds: PostgresNIO's protocol trace dumps the bytes of rows (a
/// notification's id and apns-id, a device's token), so the store never lets it trace.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct PostgresLoggingTests {
    @Test func aTraceLoggerSeesNoTokenNorPayload() async throws {
        let capture = LogCapture()
        let database = try await PostgresTestDatabase.create()
        let store = try await PostgresStore(url: database.url, nodeID: "node", logger: capture.logger())
        let device = try await store.register(owner: "device-a", bundleID: "com.example.log", environment: .development, at: Date())
        let payload = #"{"aps":{"alert":"a secret of the user"}}"#
        let notification = StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: device.token, bundleID: "com.example.log", topic: "com.example.log",
            pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil, payload: Data(payload.utf8),
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let committed = try await store.insertNotifications([notification])
        #expect(try await store.notifications(matching: .deviceTokenPrefix(String(device.token.hex.prefix(6))), before: nil, limit: 5) == committed)
        #expect(try await store.device(device.token) == device)
        await store.close()
        try await database.drop()
        let lines = capture.text.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(!lines.contains { $0.hasPrefix("trace ") })
        for secret in [device.token.hex, Data(device.token.hex.utf8).prefix(16).hexString, notification.apnsID.bytes.hexString, payload] {
            #expect(!capture.text.contains(secret.prefix(16)))
        }
    }
}
