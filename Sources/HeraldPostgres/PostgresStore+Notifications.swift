public import Foundation
public import HeraldStore
import HeraldWire
import NIOCore
import PostgresNIO

extension PostgresStore {
    /// Commits the batch in one call of `herald_insert_notifications` (one round trip, one transaction): ids in commit
    /// order across the cluster, the offline policies applied, the commit announced to every node
    /// (``PostgresSchema/insertFunction`` says how). Durable when this returns.
    public func insertNotifications(_ batch: [StoredNotification]) async throws(StoreError) -> [StoredNotification] {
        guard !batch.isEmpty else { return [] }
        let admitted = batch.map { notification in
            var admitted = notification
            admitted.delivery = notification.admission
            return admitted
        }
        // A batch with broadcasts goes through the function that also writes their channels (schema version 5), one with
        // web push messages through the one that also writes their details and topics (version 7).
        let form: InsertForm =
            admitted.contains { $0.webPush != nil } ? .withWebPushes : admitted.contains { $0.channelID != nil } ? .withBroadcasts : .plain
        let returned =
            try await rows(
                "store \(batch.count) notifications", form.statement, Self.insertBindings(admitted, node: nodeID, form: form)
            ) { row in try row.next([Int64].self) }.first ?? []
        guard let first = returned.first else { throw StoreError(.corrupt, "storing \(batch.count) notifications returned no id") }
        // Kept as for an offline device, but the device is linked to another node: pushed, as to an online device.
        let online = Set(returned.dropFirst())
        return admitted.enumerated().map { index, notification in
            var committed = notification
            committed.id = first + Int64(index)
            if online.contains(first + Int64(index)) {
                committed.offlinePolicy = nil
                committed.delivery = Delivery()
            }
            return committed
        }
    }

    /// Which insert function a batch goes through: each takes the columns of the one before and more.
    enum InsertForm {
        case plain, withBroadcasts, withWebPushes

        var statement: String {
            switch self {
            case .plain:
                "SELECT herald_insert_notifications($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)"
            case .withBroadcasts:
                """
                SELECT herald_insert_broadcasts($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, \
                $20, $21)
                """
            case .withWebPushes:
                """
                SELECT herald_insert_web_pushes($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, \
                $20, $21, $22)
                """
            }
        }
    }

    /// The batch as one array per column (the function's arguments, in order).
    private static func insertBindings(_ batch: [StoredNotification], node: String, form: InsertForm) -> PostgresBindings {
        func column<Value>(_ value: (StoredNotification) -> Value) -> [Value] { batch.map(value) }
        var bindings = PostgresBindings(
            node,
            ArrayParameter.bytea(column { $0.apnsID.bytes }),
            ArrayParameter.bytea(column { $0.uniqueID.bytes }),
            ArrayParameter.text(column { $0.deviceToken.hex }),
            ArrayParameter.text(column(\.deviceID)),
            ArrayParameter.text(column(\.bundleID)),
            ArrayParameter.text(column(\.topic)),
            ArrayParameter.text(column(\.pushType.rawValue)),
            ArrayParameter.int4(column { Int32(clamping: $0.priority.rawValue) }),
            ArrayParameter.int8(column(\.expiration)),
            ArrayParameter.text(column(\.collapseID)),
            ArrayParameter.bytea(column(\.payload)),
            ArrayParameter.float8(column(\.receivedAt.timeIntervalSince1970)),
            ArrayParameter.text(column { $0.offlinePolicy?.kind.rawValue }),
            ArrayParameter.int4(column { $0.offlinePolicy.map { Int32(clamping: $0.cap) } }),
            ArrayParameter.text(column(\.delivery.state.rawValue)),
            ArrayParameter.float8(column { $0.delivery.storedAt?.timeIntervalSince1970 }),
            ArrayParameter.float8(column { $0.delivery.discardedAt?.timeIntervalSince1970 }),
            ArrayParameter.text(column { $0.delivery.discardReason?.rawValue })
        )
        if form != .plain {
            bindings.append(ArrayParameter.text(column(\.channelID)))
            bindings.append(ArrayParameter.float8(column { $0.keptUntil?.timeIntervalSince1970 }))
        }
        if form == .withWebPushes { bindings.append(ArrayParameter.text(column { $0.webPush?.json })) }
        return bindings
    }

    public func pendingNotifications(deviceID: String, after id: Int64, limit: Int) async throws(StoreError) -> [StoredNotification] {
        try await rows(
            "read pending notifications",
            """
            SELECT \(Self.notificationColumns) FROM notification
            WHERE device_id = $1 AND state = 'pending' AND device_id IS NOT NULL AND id > $2
            ORDER BY id LIMIT $3
            """,
            PostgresBindings(deviceID, id, limit), Self.notification(from:))
    }

    public func pendingNotificationCount(deviceID: String) async throws(StoreError) -> Int {
        let counts = try await rows(
            "count pending notifications",
            "SELECT count(*) FROM notification WHERE device_id = $1 AND state = 'pending' AND device_id IS NOT NULL",
            PostgresBindings(deviceID)
        ) { row in try row.next(Int64.self) }
        return Int(counts.first ?? 0)
    }

    /// Commits without waiting for the disk (as ``Store/markDelivered(_:at:)`` allows): see ``markDelivered``.
    public func markDelivered(_ ids: [Int64], at date: Date) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        try await execute("record \(ids.count) deliveries", Self.markDelivered, PostgresBindings(ids, date.timeIntervalSince1970))
    }

    public func discardNotifications(_ ids: [Int64], reason: DiscardReason, at date: Date) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        try await execute(
            "discard \(ids.count) notifications", Self.discard, PostgresBindings(ids, date.timeIntervalSince1970, reason.rawValue))
    }

    /// Marks pending notifications delivered (arguments: the ids, the time) in a transaction whose commit does not wait
    /// for the disk (`synchronous_commit` off for it alone): a crash of the server may lose the latest marks, and those
    /// notifications are pending again.
    static let markDelivered = """
        WITH marked AS (
            UPDATE notification SET state = 'delivered', delivered_at = $2 WHERE id = ANY($1) AND state = 'pending' RETURNING 1
        )
        SELECT set_config('synchronous_commit', 'off', true), (SELECT count(*) FROM marked)
        """

    /// Discards pending notifications (arguments: the ids, the time, the reason), committed as ``markDelivered`` is.
    static let discard = """
        WITH discarded AS (
            UPDATE notification SET state = 'discarded', discarded_at = $2, discard_reason = $3
            WHERE id = ANY($1) AND state = 'pending' RETURNING 1
        )
        SELECT set_config('synchronous_commit', 'off', true), (SELECT count(*) FROM discarded)
        """

    public func recordResponse(_ response: NotificationResponse, uniqueID: UUID, deviceID: String) async throws(StoreError) -> Bool {
        let updated = try await rows(
            "record a response",
            """
            UPDATE notification SET response_action = $1, response_text = $2, responded_at = $3
            WHERE unique_id = $4 AND device_id = $5 RETURNING id
            """,
            PostgresBindings(response.action, response.text, response.at.timeIntervalSince1970, ByteBuffer(bytes: uniqueID.bytes), deviceID)
        ) { row in try row.next(Int64.self) }
        return !updated.isEmpty
    }

    public func notification(id: UUID) async throws(StoreError) -> StoredNotification? {
        try await notifications(matching: .id(id), before: nil, limit: 1).first
    }

    public func notificationCount() async throws(StoreError) -> Int {
        let counts = try await rows("count notifications", "SELECT count(*) FROM notification") { row in try row.next(Int64.self) }
        return Int(counts.first ?? 0)
    }

    /// The columns ``notification(from:)`` reads, in its order.
    static let notificationColumns = """
        id, apns_id, unique_id, device_token, device_id, bundle_id, topic, push_type, priority, expiration, collapse_id, payload, \
        received_at, offline_policy, offline_cap, state, stored_at, delivered_at, discarded_at, discard_reason, response_action, \
        response_text, responded_at, channel_id, web_push
        """

    static func notification(from row: inout RowReader) throws -> StoredNotification {
        let id = try row.next(Int64.self)
        guard let apnsID = UUID(bytes: try row.next(Data.self)), let uniqueID = UUID(bytes: try row.next(Data.self)),
            let token = DeviceToken(hex: try row.next(String.self))
        else { throw StoreError(.corrupt, "notification \(id) cannot be read") }
        let (deviceID, bundleID, topic) = (try row.next(String?.self), try row.next(String.self), try row.next(String.self))
        let (pushType, priority) = (PushType(rawValue: try row.next(String.self)), Priority(rawValue: Int(try row.next(Int32.self))))
        let (expiration, collapseID, payload) = (try row.next(Int64?.self), try row.next(String?.self), try row.next(Data.self))
        let receivedAt = Date(timeIntervalSince1970: try row.next(Double.self))
        let (policyKind, cap) = (try row.next(String?.self).flatMap(StoragePolicy.Kind.init(rawValue:)), try row.next(Int32?.self))
        guard let state = Delivery.State(rawValue: try row.next(String.self)) else { throw StoreError(.corrupt, "notification \(id) cannot be read") }
        func date() throws -> Date? { try row.next(Double?.self).map(Date.init(timeIntervalSince1970:)) }
        let delivery = Delivery(
            state: state, storedAt: try date(), deliveredAt: try date(), discardedAt: try date(),
            discardReason: try row.next(String?.self).map(DiscardReason.init(rawValue:)))
        let (action, text, respondedAt) = (try row.next(String?.self), try row.next(String?.self), try date())
        var response: NotificationResponse?
        if let action, let respondedAt { response = NotificationResponse(action: action, text: text, at: respondedAt) }
        return StoredNotification(
            id: id, apnsID: apnsID, uniqueID: uniqueID, deviceToken: token, deviceID: deviceID, bundleID: bundleID, topic: topic,
            pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID, payload: payload, receivedAt: receivedAt,
            offlinePolicy: policyKind.map { StoragePolicy(kind: $0, cap: Int(cap ?? 1)) }, delivery: delivery, response: response,
            channelID: try row.next(String?.self), webPush: try row.next(String?.self).flatMap(WebPushDetails.init(json:)))
    }
}
