import Foundation
import GRDB
import Testing

@testable import HeraldStore

/// The raw binder behind the notification insert: every type lands as GRDB would bind it, and SQLite's
/// errors come back as `DatabaseError`s.
@Suite struct ParameterBinderTests {
    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id BLOB UNIQUE, name TEXT, count INTEGER, share DOUBLE, body BLOB)")
        }
        return queue
    }

    @Test func valuesAndNullsAreStoredAsTheirSQLiteTypes() throws {
        let queue = try database()
        let id = UUID()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            var row = try ParameterBinder(insert)
            try row.bind(id)
            try row.bind("Grüße, \"quoted\"")
            try row.bind(Int64.max)
            try row.bind(0.25)
            try row.bind(Data())
            try row.execute()

            row = try ParameterBinder(insert)  // the same statement again, with what the first run bound cleared
            try row.bind(UUID())
            try row.bind(nil as String?)
            try row.bind(nil as Int?)
            try row.bind(nil as Double?)
            try row.bind(Data([0, 1, 2]))
            try row.execute()
        }
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT *, typeof(body) AS bodyType FROM t ORDER BY rowid") }
        #expect(rows.count == 2)
        #expect(rows[0]["id"] == id.bytes)
        #expect(rows[0]["name"] == "Grüße, \"quoted\"")
        #expect(rows[0]["count"] == Int64.max)
        #expect(rows[0]["share"] == 0.25)
        #expect(rows[0]["bodyType"] == "blob", "an empty payload is an empty blob, not NULL")
        #expect(rows[1]["name"] as String? == nil)
        #expect(rows[1]["count"] as Int64? == nil)
        #expect(rows[1]["body"] == Data([0, 1, 2]))
    }

    @Test func aMissingParameterIsAnErrorNotANull() throws {
        let queue = try database()
        #expect(throws: DatabaseError.self) {
            try queue.write { db in
                var row = try ParameterBinder(try db.cachedStatement(sql: "INSERT INTO t (id, name) VALUES (?, ?)"))
                try row.bind(UUID())
                try row.execute()
            }
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 0)
    }

    @Test func aConstraintViolationIsADatabaseErrorNamingIt() throws {
        let queue = try database()
        let id = UUID()
        let error = #expect(throws: DatabaseError.self) {
            try queue.write { db in
                let insert = try db.cachedStatement(sql: "INSERT INTO t (id) VALUES (?)")
                for _ in 0..<2 {
                    var row = try ParameterBinder(insert)
                    try row.bind(id)
                    try row.execute()
                }
            }
        }
        #expect(error?.resultCode == .SQLITE_CONSTRAINT)
        #expect(error?.message?.contains("UNIQUE") == true)
    }
}
