public import Foundation
import GRDB
import HeraldWire

extension SQLiteStore {
    public func insertNotifications(_ batch: [StoredNotification]) async throws(StoreError) -> [StoredNotification] {
        guard !batch.isEmpty else { return [] }
        return try await write("store \(batch.count) notifications") { db in try Self.insert(batch, in: db) }
    }

    /// Commits on GRDB's writer queue and calls `completion` there: no hop through Swift's cooperative pool.
    public func insertNotifications(
        _ batch: [StoredNotification], completion: @escaping @Sendable (Result<[StoredNotification], StoreError>) -> Void
    ) {
        guard !batch.isEmpty else { return completion(.success([])) }
        pool.asyncWrite(
            { db in try Self.insert(batch, in: db) },
            completion: { _, result in
                completion(result.mapError { StoreError.sqlite($0, cannot: "store \(batch.count) notifications") })
            })
    }

    private static func insert(_ batch: [StoredNotification], in db: Database) throws -> [StoredNotification] {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO notification
                (apns_id, unique_id, device_token, device_id, bundle_id, topic, push_type, priority, expiration,
                 collapse_id, payload, received_at, offline_policy, offline_cap, state, stored_at, discarded_at, discard_reason,
                 channel_id, web_push)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        // One copy of each notification, appended: `var committed = batch` would copy the array (the caller still holds
        // it), then each element again to change it.
        var committed: [StoredNotification] = []
        committed.reserveCapacity(batch.count)
        for var notification in batch {
            notification.delivery = notification.admission
            var row = try ParameterBinder(insert)
            try row.bind(notification.apnsID)
            try row.bind(notification.uniqueID)
            try row.bind(notification.deviceToken.hex)
            try row.bind(notification.deviceID)
            try row.bind(notification.bundleID)
            try row.bind(notification.topic)
            try row.bind(notification.pushType.rawValue)
            try row.bind(notification.priority.rawValue)
            try row.bind(notification.expiration)
            try row.bind(notification.collapseID)
            try row.bind(notification.payload)
            try row.bind(notification.receivedAt.timeIntervalSince1970)
            try row.bind(notification.offlinePolicy?.kind.rawValue)
            try row.bind(notification.offlinePolicy?.cap)
            try row.bind(notification.delivery.state.rawValue)
            try row.bind(notification.delivery.storedAt?.timeIntervalSince1970)
            try row.bind(notification.delivery.discardedAt?.timeIntervalSince1970)
            try row.bind(notification.delivery.discardReason?.rawValue)
            try row.bind(notification.channelID)
            try row.bind(notification.webPush?.json)
            try row.execute()
            notification.id = db.lastInsertedRowID
            // A message discarded as it came (TTL 0 for a subscriber away) replaces nothing.
            if notification.webPush != nil, notification.delivery.state == .pending, let topic = notification.collapseID {
                try Self.replaceWebPushTopic(topic, with: notification, db)
            }
            if notification.keptUntil != nil {
                try Self.keepBroadcast(notification, db)
            } else if notification.delivery.storedAt != nil {
                try Self.applyOfflinePolicy(to: notification, db)
            }
            committed.append(notification)
        }
        return committed
    }

    /// RFC 8030 §5.4: a waiting message of the subscription with the same `Topic` is replaced by the new one, whether
    /// the subscriber is linked or virtual (index `notification_pending_web_push_topic`, which holds only such messages).
    private static func replaceWebPushTopic(_ topic: String, with notification: StoredNotification, _ db: Database) throws {
        guard let id = notification.id else { return }
        try db.execute(
            sql: """
                UPDATE notification SET state = 'discarded', discarded_at = ?, discard_reason = ?
                WHERE device_token = ? AND collapse_id = ? AND state = 'pending' AND web_push IS NOT NULL AND collapse_id IS NOT NULL
                    AND id < ?
                """,
            arguments: [
                notification.receivedAt.timeIntervalSince1970, DiscardReason.coalesced.rawValue, notification.deviceToken.hex, topic, id,
            ])
    }

    /// What one app on one device has pending (arguments: the device id, the token), found through the
    /// device's pending index.
    private static let pendingForApp = "device_id = ? AND device_token = ? AND state = 'pending' AND device_id IS NOT NULL"
    /// Discards an app's pending notifications (arguments: the time, the reason, the device id, the token).
    static let discardPendingForApp =
        "UPDATE notification SET state = 'discarded', discarded_at = ?, discard_reason = ? WHERE "
        + pendingForApp
    /// Of an app's pending notifications older than an id, the id `cap` places below the newest (arguments: the
    /// device id, the token, the id, the cap).
    static let oldestKeptForApp = "SELECT id FROM notification WHERE \(pendingForApp) AND id < ? ORDER BY id DESC LIMIT 1 OFFSET ?"

    /// Discards what the newly stored `notification` replaces: the same collapse id, then the older
    /// ones under `latest`, or the oldest past the cap under `all`.
    private static func applyOfflinePolicy(to notification: StoredNotification, _ db: Database) throws {
        guard let id = notification.id, let deviceID = notification.deviceID, let policy = notification.offlinePolicy else { return }
        let at = notification.receivedAt.timeIntervalSince1970
        let app: StatementArguments = [deviceID, notification.deviceToken.hex]
        let discardOlder = Self.discardPendingForApp + " AND id < ?"
        let coalesced: StatementArguments = [at, DiscardReason.coalesced.rawValue]
        switch policy.kind {
        case .latest:
            try db.execute(sql: discardOlder, arguments: coalesced + app + [id])
            return
        case .all:
            if let collapseID = notification.collapseID {
                try db.execute(sql: discardOlder + " AND collapse_id = ?", arguments: coalesced + app + [id, collapseID])
            }
            // The id at position `cap` counting down from the newest: it and everything older overflow.
            let oldestKept = try Int64.fetchOne(db, sql: Self.oldestKeptForApp, arguments: app + [id + 1, policy.cap])
            if let oldestKept {
                try db.execute(sql: discardOlder, arguments: [at, DiscardReason.overflow.rawValue] + app + [oldestKept + 1])
            }
        }
    }

    public func pendingNotifications(deviceID: String, after id: Int64, limit: Int) async throws(StoreError) -> [StoredNotification] {
        try await read("read pending notifications") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM notification
                    WHERE device_id = ? AND state = 'pending' AND device_id IS NOT NULL AND id > ?
                    ORDER BY id LIMIT ?
                    """,
                arguments: [deviceID, id, limit]
            ).map(Self.notification(from:))
        }
    }

    public func pendingNotificationCount(deviceID: String) async throws(StoreError) -> Int {
        try await read("count pending notifications") { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM notification WHERE device_id = ? AND state = 'pending' AND device_id IS NOT NULL",
                arguments: [deviceID]
            ) ?? 0
        }
    }

    public func markDelivered(_ ids: [Int64], at date: Date) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        try await writeUnsynced("record \(ids.count) deliveries") { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE notification SET state = 'delivered', delivered_at = ? WHERE id = ? AND state = 'pending'"
            )
            for id in ids {
                var row = try ParameterBinder(statement)
                try row.bind(date.timeIntervalSince1970)
                try row.bind(id)
                try row.execute()
            }
        }
    }

    public func discardNotifications(_ ids: [Int64], reason: DiscardReason, at date: Date) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        try await writeUnsynced("discard \(ids.count) notifications") { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE notification SET state = 'discarded', discarded_at = ?, discard_reason = ?
                    WHERE id = ? AND state = 'pending'
                    """)
            for id in ids { try statement.execute(arguments: [date.timeIntervalSince1970, reason.rawValue, id]) }
        }
    }

    public func recordResponse(_ response: NotificationResponse, uniqueID: UUID, deviceID: String) async throws(StoreError) -> Bool {
        try await write("record a response") { db in
            try db.execute(
                sql: "UPDATE notification SET response_action = ?, response_text = ?, responded_at = ? WHERE unique_id = ? AND device_id = ?",
                arguments: [response.action, response.text, response.at.timeIntervalSince1970, uniqueID.bytes, deviceID])
            return db.changesCount > 0
        }
    }

    public func notification(id: UUID) async throws(StoreError) -> StoredNotification? {
        let bytes = id.bytes
        return try await read("read a notification") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT * FROM notification WHERE unique_id = ? OR apns_id = ? ORDER BY id DESC LIMIT 1",
                arguments: [bytes, bytes]
            ).map(Self.notification(from:))
        }
    }

    public func notificationCount() async throws(StoreError) -> Int {
        try await read("count notifications") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notification") ?? 0
        }
    }

    static func notification(from row: Row) throws -> StoredNotification {
        guard let apnsID = UUID(bytes: row["apns_id"]),
            let uniqueID = UUID(bytes: row["unique_id"]),
            let token = DeviceToken(hex: row["device_token"] as String),
            let state = Delivery.State(rawValue: row["state"])
        else { throw StoreError(.corrupt, "a notification row cannot be read") }
        let date = { (column: String) in (row[column] as Double?).map(Date.init(timeIntervalSince1970:)) }
        var offlinePolicy: StoragePolicy?
        if let kind = (row["offline_policy"] as String?).flatMap(StoragePolicy.Kind.init(rawValue:)) {
            offlinePolicy = StoragePolicy(kind: kind, cap: row["offline_cap"] ?? 1)
        }
        var response: NotificationResponse?
        if let action = row["response_action"] as String?, let at = row["responded_at"] as Double? {
            response = NotificationResponse(action: action, text: row["response_text"], at: Date(timeIntervalSince1970: at))
        }
        return StoredNotification(
            id: row["id"],
            apnsID: apnsID,
            uniqueID: uniqueID,
            deviceToken: token,
            deviceID: row["device_id"],
            bundleID: row["bundle_id"],
            topic: row["topic"],
            pushType: PushType(rawValue: row["push_type"]),
            priority: Priority(rawValue: row["priority"]),
            expiration: row["expiration"],
            collapseID: row["collapse_id"],
            payload: row["payload"],
            receivedAt: Date(timeIntervalSince1970: row["received_at"]),
            offlinePolicy: offlinePolicy,
            delivery: Delivery(
                state: state,
                storedAt: date("stored_at"),
                deliveredAt: date("delivered_at"),
                discardedAt: date("discarded_at"),
                discardReason: (row["discard_reason"] as String?).map(DiscardReason.init(rawValue:))
            ),
            response: response,
            channelID: row["channel_id"],
            webPush: (row["web_push"] as String?).flatMap(WebPushDetails.init(json:))
        )
    }
}
