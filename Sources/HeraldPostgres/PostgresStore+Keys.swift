import Foundation
public import HeraldStore
import HeraldWire
import PostgresNIO

extension PostgresStore {
    public func saveKey(_ key: ProviderKey) async throws(StoreError) {
        try await execute(
            "save key \(key.keyID)",
            """
            INSERT INTO provider_key (team_id, key_id, topics, environment, public_key_pem, created_at, revoked_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (team_id, key_id) DO UPDATE SET topics = excluded.topics, environment = excluded.environment,
                public_key_pem = excluded.public_key_pem, created_at = excluded.created_at, revoked_at = excluded.revoked_at
            """,
            PostgresBindings(
                key.teamID, key.keyID, key.topics, key.environment.rawValue, key.publicKeyPEM, key.createdAt.timeIntervalSince1970,
                key.revokedAt?.timeIntervalSince1970))
    }

    public func key(teamID: String, keyID: String) async throws(StoreError) -> ProviderKey? {
        try await rows(
            "read key \(keyID)", "SELECT \(Self.keyColumns) FROM provider_key WHERE team_id = $1 AND key_id = $2",
            PostgresBindings(teamID, keyID), Self.key(from:)
        ).first
    }

    public func keys() async throws(StoreError) -> [ProviderKey] {
        try await rows("read keys", "SELECT \(Self.keyColumns) FROM provider_key ORDER BY team_id, key_id", Self.key(from:))
    }

    private static let keyColumns = "team_id, key_id, topics, environment, public_key_pem, created_at, revoked_at"

    private static func key(from row: inout RowReader) throws -> ProviderKey {
        let (teamID, keyID, topics) = (try row.next(String.self), try row.next(String.self), try row.next([String].self))
        guard let environment = APNsEnvironment(rawValue: try row.next(String.self)) else {
            throw StoreError(.corrupt, "key \(keyID) has an unknown environment")
        }
        return ProviderKey(
            teamID: teamID, keyID: keyID, topics: topics, environment: environment, publicKeyPEM: try row.next(),
            createdAt: Date(timeIntervalSince1970: try row.next()), revokedAt: try row.next(Double?.self).map(Date.init(timeIntervalSince1970:)))
    }
}
