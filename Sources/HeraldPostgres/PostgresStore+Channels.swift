public import Foundation
public import HeraldStore
public import HeraldWire
import NIOCore
import PostgresNIO

extension PostgresStore {
    public func createChannel(_ channel: BroadcastChannel, limit: Int) async throws(StoreError) -> Bool {
        try await rows(
            "create a broadcast channel for \(channel.bundleID)", "SELECT herald_create_channel($1, $2, $3, $4, $5, $6)",
            PostgresBindings(
                channel.id, channel.bundleID, channel.environment.rawValue, Int16(channel.storagePolicy.rawValue),
                channel.createdAt.timeIntervalSince1970, Int32(clamping: limit))
        ) { row in try row.next(Bool.self) }.first == true
    }

    public func channel(id: String) async throws(StoreError) -> BroadcastChannel? {
        try await rows(
            "read a broadcast channel", "SELECT \(Self.channelColumns) FROM broadcast_channel WHERE id = $1", PostgresBindings(id),
            Self.channel(from:)
        ).first
    }

    public func channels(bundleID: String, environment: APNsEnvironment) async throws(StoreError) -> [BroadcastChannel] {
        try await rows(
            "read the broadcast channels of \(bundleID)",
            """
            SELECT \(Self.channelColumns) FROM broadcast_channel WHERE bundle_id = $1 AND environment = $2 AND deleted_at IS NULL
            ORDER BY created_at, id
            """,
            PostgresBindings(bundleID, environment.rawValue), Self.channel(from:))
    }

    public func deleteChannel(id: String, at date: Date) async throws(StoreError) -> Bool {
        try await rows(
            "delete a broadcast channel",
            "UPDATE broadcast_channel SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL RETURNING id",
            PostgresBindings(date.timeIntervalSince1970, id)
        ) { row in try row.next(String.self) }.isEmpty == false
    }

    public func channels(environment: APNsEnvironment, limit: Int) async throws(StoreError) -> [BroadcastChannel] {
        try await rows(
            "read the broadcast channels",
            """
            SELECT \(Self.channelColumns) FROM broadcast_channel WHERE environment = $1 AND deleted_at IS NULL
            ORDER BY bundle_id, created_at, id LIMIT $2
            """,
            PostgresBindings(environment.rawValue, Int64(limit)), Self.channel(from:))
    }

    private static let channelColumns = "id, bundle_id, environment, storage_policy, created_at, deleted_at"

    private static func channel(from row: inout RowReader) throws -> BroadcastChannel {
        let id = try row.next(String.self)
        let bundleID = try row.next(String.self)
        guard let environment = APNsEnvironment(rawValue: try row.next(String.self)),
            let policy = ChannelStoragePolicy(rawValue: Int(try row.next(Int16.self)))
        else { throw StoreError(.corrupt, "a broadcast channel has an unknown environment or storage policy") }
        let createdAt = Date(timeIntervalSince1970: try row.next(Double.self))
        let deletedAt = try row.next(Double?.self).map(Date.init(timeIntervalSince1970:))
        return BroadcastChannel(
            id: id, bundleID: bundleID, environment: environment, storagePolicy: policy, createdAt: createdAt, deletedAt: deletedAt)
    }
}

extension PostgresStore {
    public func latestBroadcast(channelID: String) async throws(StoreError) -> ChannelBroadcast? {
        try await rows(
            "read a channel's broadcast",
            """
            SELECT channel_id, notification_id, unique_id, payload, priority, expires_at, received_at FROM channel_broadcast
            WHERE channel_id = $1
            """,
            PostgresBindings(channelID)
        ) { row in
            let channelID = try row.next(String.self)
            let notificationID = try row.next(Int64?.self)
            guard let uniqueID = UUID(bytes: try row.next(Data.self)) else {
                throw StoreError(.corrupt, "a channel's broadcast has a malformed id")
            }
            return ChannelBroadcast(
                channelID: channelID, notificationID: notificationID, uniqueID: uniqueID, payload: try row.next(Data.self),
                priority: Int(try row.next(Int16.self)), expiresAt: Date(timeIntervalSince1970: try row.next(Double.self)),
                receivedAt: Date(timeIntervalSince1970: try row.next(Double.self)))
        }.first
    }
}
