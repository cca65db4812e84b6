public import Foundation
public import HeraldStore
import HeraldWire
import NIOCore
import PostgresNIO

extension PostgresStore {
    public func saveFaultRule(_ rule: FaultRule) async throws(StoreError) {
        try await execute(
            "save fault rule \(rule.id)",
            """
            INSERT INTO fault_rule (id, rule, created_at, expires_at, persistent) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (id) DO UPDATE SET rule = excluded.rule, created_at = excluded.created_at, expires_at = excluded.expires_at,
                persistent = excluded.persistent
            """,
            PostgresBindings(
                rule.id, String(decoding: rule.json.encoded(), as: UTF8.self), rule.createdAt.timeIntervalSince1970,
                rule.expiresAt.timeIntervalSince1970, rule.persistent))
    }

    public func faultRules(at now: Date) async throws(StoreError) -> [FaultRule] {
        let texts = try await rows(
            "read fault rules", "SELECT rule FROM fault_rule WHERE expires_at > $1 ORDER BY created_at, id",
            PostgresBindings(now.timeIntervalSince1970)
        ) { row in try row.next(String.self) }
        return try texts.map { text throws(StoreError) in try FaultRule.stored(text) }
    }

    public func removeFaultRule(id: String) async throws(StoreError) -> Bool {
        let removed = try await rows("remove fault rule \(id)", "DELETE FROM fault_rule WHERE id = $1 RETURNING 1", PostgresBindings(id)) {
            row in try row.next(Int32.self)
        }
        return !removed.isEmpty
    }

    public func removeFaultRules(keepingPersistent: Bool, now: Date) async throws(StoreError) -> Int {
        let removed =
            keepingPersistent
            ? try await rows(
                "remove fault rules", "DELETE FROM fault_rule WHERE NOT persistent OR expires_at <= $1 RETURNING 1",
                PostgresBindings(now.timeIntervalSince1970)
            ) { row in try row.next(Int32.self) }
            : try await rows("remove fault rules", "DELETE FROM fault_rule RETURNING 1") { row in try row.next(Int32.self) }
        return removed.count
    }

    public func recordFault(_ summary: String, uniqueID: UUID, at date: Date) async throws(StoreError) {
        try await execute(
            "mark a notification faulted",
            "UPDATE notification SET response_action = $1, response_text = $2, responded_at = $3 WHERE unique_id = $4",
            PostgresBindings(NotificationResponse.faulted, summary, date.timeIntervalSince1970, ByteBuffer(bytes: uniqueID.bytes)))
    }
}
