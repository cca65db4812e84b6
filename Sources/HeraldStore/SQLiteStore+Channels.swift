public import Foundation
import GRDB
public import HeraldWire

extension SQLiteStore {
    public func createChannel(_ channel: BroadcastChannel, limit: Int) async throws(StoreError) -> Bool {
        try await write("create a broadcast channel for \(channel.bundleID)") { db in
            let live =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM broadcast_channel WHERE bundle_id = ? AND environment = ? AND deleted_at IS NULL",
                    arguments: [channel.bundleID, channel.environment.rawValue]) ?? 0
            guard live < limit else { return false }
            try db.execute(
                sql: """
                    INSERT INTO broadcast_channel (id, bundle_id, environment, storage_policy, created_at, deleted_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    channel.id, channel.bundleID, channel.environment.rawValue, channel.storagePolicy.rawValue,
                    channel.createdAt.timeIntervalSince1970, channel.deletedAt?.timeIntervalSince1970,
                ])
            return true
        }
    }

    public func channel(id: String) async throws(StoreError) -> BroadcastChannel? {
        try await read("read a broadcast channel") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM broadcast_channel WHERE id = ?", arguments: [id]).map(Self.channel(from:))
        }
    }

    public func channels(bundleID: String, environment: APNsEnvironment) async throws(StoreError) -> [BroadcastChannel] {
        try await read("read the broadcast channels of \(bundleID)") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM broadcast_channel WHERE bundle_id = ? AND environment = ? AND deleted_at IS NULL
                    ORDER BY created_at, id
                    """,
                arguments: [bundleID, environment.rawValue]
            ).map(Self.channel(from:))
        }
    }

    public func channels(environment: APNsEnvironment, limit: Int) async throws(StoreError) -> [BroadcastChannel] {
        try await read("read the broadcast channels") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM broadcast_channel WHERE environment = ? AND deleted_at IS NULL ORDER BY bundle_id, created_at, id LIMIT ?
                    """,
                arguments: [environment.rawValue, limit]
            ).map(Self.channel(from:))
        }
    }

    public func deleteChannel(id: String, at date: Date) async throws(StoreError) -> Bool {
        try await write("delete a broadcast channel") { db in
            try db.execute(
                sql: "UPDATE broadcast_channel SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                arguments: [date.timeIntervalSince1970, id])
            return db.changesCount > 0
        }
    }

    private static func channel(from row: Row) throws -> BroadcastChannel {
        guard let environment = APNsEnvironment(rawValue: row["environment"]),
            let policy = ChannelStoragePolicy(rawValue: row["storage_policy"])
        else { throw StoreError(.corrupt, "a broadcast channel has an unknown environment or storage policy") }
        let deletedAt: Double? = row["deleted_at"]
        return BroadcastChannel(
            id: row["id"], bundleID: row["bundle_id"], environment: environment, storagePolicy: policy,
            createdAt: Date(timeIntervalSince1970: row["created_at"]), deletedAt: deletedAt.map(Date.init(timeIntervalSince1970:)))
    }
}

extension SQLiteStore {
    /// Makes `broadcast` its channel's kept one, in place of the one before, while the channel is live.
    static func keepBroadcast(_ broadcast: StoredNotification, _ db: Database) throws {
        guard let channelID = broadcast.channelID, let keptUntil = broadcast.keptUntil else { return }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO channel_broadcast
                    (channel_id, notification_id, unique_id, payload, priority, expires_at, received_at)
                SELECT ?, ?, ?, ?, ?, ?, ? FROM broadcast_channel WHERE id = ? AND deleted_at IS NULL
                """,
            arguments: [
                channelID, broadcast.id, broadcast.uniqueID.bytes, broadcast.payload, broadcast.priority.rawValue,
                keptUntil.timeIntervalSince1970, broadcast.receivedAt.timeIntervalSince1970, channelID,
            ])
    }

    public func latestBroadcast(channelID: String) async throws(StoreError) -> ChannelBroadcast? {
        try await read("read a channel's broadcast") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM channel_broadcast WHERE channel_id = ?", arguments: [channelID]) else {
                return nil
            }
            guard let uniqueID = UUID(bytes: row["unique_id"]) else { throw StoreError(.corrupt, "a channel's broadcast has a malformed id") }
            return ChannelBroadcast(
                channelID: row["channel_id"], notificationID: row["notification_id"], uniqueID: uniqueID, payload: row["payload"],
                priority: row["priority"], expiresAt: Date(timeIntervalSince1970: row["expires_at"]),
                receivedAt: Date(timeIntervalSince1970: row["received_at"]))
        }
    }
}
