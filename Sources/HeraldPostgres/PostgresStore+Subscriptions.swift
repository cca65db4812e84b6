public import Foundation
public import HeraldStore
import PostgresNIO

extension PostgresStore {
    public func subscribe(_ subscription: ChannelSubscription) async throws(StoreError) {
        try await execute(
            "subscribe a device to a channel",
            """
            INSERT INTO channel_subscription (device_id, channel_id, bundle_id, subscribed_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (device_id, channel_id) DO NOTHING
            """,
            PostgresBindings(
                subscription.deviceID, subscription.channelID, subscription.bundleID, subscription.subscribedAt.timeIntervalSince1970))
    }

    public func unsubscribe(deviceID: String, channelID: String) async throws(StoreError) -> Bool {
        try await rows(
            "unsubscribe a device from a channel",
            "DELETE FROM channel_subscription WHERE device_id = $1 AND channel_id = $2 RETURNING 1",
            PostgresBindings(deviceID, channelID)
        ) { row in try row.next(Int32.self) }.isEmpty == false
    }

    public func subscriptions(deviceID: String) async throws(StoreError) -> [ChannelSubscription] {
        try await rows(
            "read a device's channel subscriptions",
            "SELECT device_id, channel_id, bundle_id, subscribed_at FROM channel_subscription WHERE device_id = $1 ORDER BY channel_id",
            PostgresBindings(deviceID)
        ) { row in
            ChannelSubscription(
                deviceID: try row.next(), channelID: try row.next(), bundleID: try row.next(),
                subscribedAt: Date(timeIntervalSince1970: try row.next()))
        }
    }

    public func subscriberCount(channelID: String) async throws(StoreError) -> Int {
        Int(
            try await rows(
                "count a channel's subscribers", "SELECT count(*) FROM channel_subscription WHERE channel_id = $1", PostgresBindings(channelID)
            ) { row in try row.next(Int64.self) }.first ?? 0)
    }

    public func broadcastAcknowledgements(channelID: String, notificationID: Int64) async throws(StoreError) -> Int {
        Int(
            try await rows(
                "count a broadcast's acknowledgements", "SELECT count(*) FROM channel_subscription WHERE channel_id = $1 AND delivered_id >= $2",
                PostgresBindings(channelID, notificationID)
            ) { row in try row.next(Int64.self) }.first ?? 0)
    }

    public func keptBroadcasts(deviceID: String, at date: Date) async throws(StoreError) -> [StoredNotification] {
        let columns = Self.notificationColumns.split(separator: ",").map { "n." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return try await rows(
            "read a device's kept broadcasts",
            """
            SELECT \(columns.joined(separator: ", ")) FROM channel_subscription s
            JOIN broadcast_channel c ON c.id = s.channel_id AND c.deleted_at IS NULL
            JOIN channel_broadcast b ON b.channel_id = s.channel_id
            JOIN notification n ON n.id = b.notification_id
            WHERE s.device_id = $1 AND b.notification_id > s.delivered_id AND b.expires_at > $2
            ORDER BY n.id
            """,
            PostgresBindings(deviceID, date.timeIntervalSince1970), Self.notification(from:))
    }

    /// Committed as ``markDelivered(_:at:)`` is, without waiting for the disk.
    public func markBroadcastsDelivered(_ deliveries: [BroadcastDelivery]) async throws(StoreError) {
        guard !deliveries.isEmpty else { return }
        try await execute(
            "record \(deliveries.count) broadcast deliveries",
            """
            WITH marked AS (
                UPDATE channel_subscription s SET delivered_id = greatest(s.delivered_id, d.id)
                FROM unnest($1::text[], $2::text[], $3::bigint[]) AS d(device_id, channel_id, id)
                WHERE s.device_id = d.device_id AND s.channel_id = d.channel_id
                RETURNING 1
            )
            SELECT set_config('synchronous_commit', 'off', true), (SELECT count(*) FROM marked)
            """,
            PostgresBindings(deliveries.map(\.deviceID), deliveries.map(\.channelID), deliveries.map(\.notificationID)))
    }
}
