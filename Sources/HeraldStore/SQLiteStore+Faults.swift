public import Foundation
import GRDB
import HeraldWire

extension SQLiteStore {
    public func saveFaultRule(_ rule: FaultRule) async throws(StoreError) {
        let text = String(decoding: rule.json.encoded(), as: UTF8.self)
        try await write("save fault rule \(rule.id)") { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO fault_rule (id, rule, created_at, expires_at, persistent) VALUES (?, ?, ?, ?, ?)",
                arguments: [rule.id, text, rule.createdAt.timeIntervalSince1970, rule.expiresAt.timeIntervalSince1970, rule.persistent])
        }
    }

    public func faultRules(at now: Date) async throws(StoreError) -> [FaultRule] {
        let rows = try await read("read fault rules") { db in
            try String.fetchAll(
                db, sql: "SELECT rule FROM fault_rule WHERE expires_at > ? ORDER BY created_at, id", arguments: [now.timeIntervalSince1970])
        }
        return try rows.map { text throws(StoreError) in try FaultRule.stored(text) }
    }

    public func removeFaultRule(id: String) async throws(StoreError) -> Bool {
        try await write("remove fault rule \(id)") { db in
            try db.execute(sql: "DELETE FROM fault_rule WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func removeFaultRules(keepingPersistent: Bool, now: Date) async throws(StoreError) -> Int {
        try await write("remove fault rules") { db in
            if keepingPersistent {
                try db.execute(
                    sql: "DELETE FROM fault_rule WHERE persistent = 0 OR expires_at <= ?", arguments: [now.timeIntervalSince1970])
            } else {
                try db.execute(sql: "DELETE FROM fault_rule")
            }
            return db.changesCount
        }
    }

    public func recordFault(_ summary: String, uniqueID: UUID, at date: Date) async throws(StoreError) {
        try await write("mark a notification faulted") { db in
            try db.execute(
                sql: "UPDATE notification SET response_action = ?, response_text = ?, responded_at = ? WHERE unique_id = ?",
                arguments: [NotificationResponse.faulted, summary, date.timeIntervalSince1970, uniqueID.bytes])
        }
    }
}
