public import Foundation
import GRDB

extension SQLiteStore {
    public func subscribe(_ subscription: ChannelSubscription) async throws(StoreError) {
        try await write("subscribe a device to a channel") { db in
            try db.execute(
                sql: """
                    INSERT INTO channel_subscription (device_id, channel_id, bundle_id, subscribed_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (device_id, channel_id) DO NOTHING
                    """,
                arguments: [
                    subscription.deviceID, subscription.channelID, subscription.bundleID, subscription.subscribedAt.timeIntervalSince1970,
                ])
        }
    }

    public func unsubscribe(deviceID: String, channelID: String) async throws(StoreError) -> Bool {
        try await write("unsubscribe a device from a channel") { db in
            try db.execute(sql: "DELETE FROM channel_subscription WHERE device_id = ? AND channel_id = ?", arguments: [deviceID, channelID])
            return db.changesCount > 0
        }
    }

    public func subscriptions(deviceID: String) async throws(StoreError) -> [ChannelSubscription] {
        try await read("read a device's channel subscriptions") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM channel_subscription WHERE device_id = ? ORDER BY channel_id", arguments: [deviceID]
            ).map { row in
                ChannelSubscription(
                    deviceID: row["device_id"], channelID: row["channel_id"], bundleID: row["bundle_id"],
                    subscribedAt: Date(timeIntervalSince1970: row["subscribed_at"]))
            }
        }
    }

    public func subscriberCount(channelID: String) async throws(StoreError) -> Int {
        try await read("count a channel's subscribers") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM channel_subscription WHERE channel_id = ?", arguments: [channelID]) ?? 0
        }
    }

    public func broadcastAcknowledgements(channelID: String, notificationID: Int64) async throws(StoreError) -> Int {
        try await read("count a broadcast's acknowledgements") { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM channel_subscription WHERE channel_id = ? AND delivered_id >= ?",
                arguments: [channelID, notificationID]) ?? 0
        }
    }

    public func keptBroadcasts(deviceID: String, at date: Date) async throws(StoreError) -> [StoredNotification] {
        try await read("read a device's kept broadcasts") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT n.* FROM channel_subscription s
                    JOIN broadcast_channel c ON c.id = s.channel_id AND c.deleted_at IS NULL
                    JOIN channel_broadcast b ON b.channel_id = s.channel_id
                    JOIN notification n ON n.id = b.notification_id
                    WHERE s.device_id = ? AND b.notification_id > s.delivered_id AND b.expires_at > ?
                    ORDER BY n.id
                    """,
                arguments: [deviceID, date.timeIntervalSince1970]
            ).map(Self.notification(from:))
        }
    }

    public func markBroadcastsDelivered(_ deliveries: [BroadcastDelivery]) async throws(StoreError) {
        guard !deliveries.isEmpty else { return }
        try await writeUnsynced("record \(deliveries.count) broadcast deliveries") { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE channel_subscription SET delivered_id = MAX(delivered_id, ?) WHERE device_id = ? AND channel_id = ?
                    """)
            for delivery in deliveries {
                try statement.execute(arguments: [delivery.notificationID, delivery.deviceID, delivery.channelID])
            }
        }
    }
}
