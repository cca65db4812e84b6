import Foundation
import GRDB
import HeraldWire

extension SQLiteStore {
    public func saveKey(_ key: ProviderKey) async throws(StoreError) {
        try await write("save key \(key.keyID)") { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO provider_key
                    (team_id, key_id, topics, environment, public_key_pem, created_at, revoked_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    key.teamID, key.keyID, key.topics.joined(separator: " "), key.environment.rawValue,
                    key.publicKeyPEM, key.createdAt.timeIntervalSince1970, key.revokedAt?.timeIntervalSince1970,
                ]
            )
        }
    }

    public func key(teamID: String, keyID: String) async throws(StoreError) -> ProviderKey? {
        try await read("read key \(keyID)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM provider_key WHERE team_id = ? AND key_id = ?", arguments: [teamID, keyID])
                .map(Self.key(from:))
        }
    }

    public func keys() async throws(StoreError) -> [ProviderKey] {
        try await read("read keys") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM provider_key ORDER BY team_id, key_id").map(Self.key(from:))
        }
    }

    private static func key(from row: Row) throws -> ProviderKey {
        guard let environment = APNsEnvironment(rawValue: row["environment"]) else {
            throw StoreError(.corrupt, "key \(row["key_id"] as String) has an unknown environment")
        }
        let topics: String = row["topics"]
        return ProviderKey(
            teamID: row["team_id"],
            keyID: row["key_id"],
            topics: topics.split(separator: " ").map(String.init),
            environment: environment,
            publicKeyPEM: row["public_key_pem"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        )
    }
}
