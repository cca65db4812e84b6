public import Foundation
public import HeraldStore
import NIOCore
import PostgresNIO

/// What the nodes of a cluster share besides the notifications: leases, device links, secrets. Times of leases and
/// links are the server's (`now()`), so nodes whose clocks disagree still agree on who is alive.
extension PostgresStore {
    public func notifications(in ids: ClosedRange<Int64>, pendingOnly: Bool) async throws(StoreError) -> [StoredNotification] {
        try await rows(
            "read notifications \(ids.lowerBound)–\(ids.upperBound)",
            """
            SELECT \(Self.notificationColumns) FROM notification
            WHERE id BETWEEN $1 AND $2 AND (NOT $3 OR (state = 'pending' AND (device_id IS NOT NULL OR channel_id IS NOT NULL)))
            ORDER BY id
            """,
            PostgresBindings(ids.lowerBound, ids.upperBound, pendingOnly), Self.notification(from:))
    }

    /// Upserts the node with its lease renewed, and removes the nodes whose lease ran out more than
    /// ``Configuration/expiredNodeRetention`` ago, with their device links, in one statement.
    public func heartbeat(_ node: ClusterNode, lease: Duration) async throws(StoreError) {
        try await execute(
            "renew the lease of node \(node.name)",
            """
            WITH renewed AS (
                INSERT INTO node (id, name, started_at, heartbeat_at, lease_until)
                VALUES ($1, $2, $3, extract(epoch FROM now())::float8, extract(epoch FROM now())::float8 + $4)
                ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, lease_until = excluded.lease_until
            ), expired AS (
                DELETE FROM node WHERE lease_until < extract(epoch FROM now())::float8 - $5 AND id <> $1 RETURNING id
            )
            DELETE FROM device_link WHERE node_id IN (SELECT id FROM expired)
            """,
            PostgresBindings(
                node.id, node.name, node.startedAt.timeIntervalSince1970, lease / .seconds(1),
                configuration.expiredNodeRetention / .seconds(1)))
    }

    public func liveNodes() async throws(StoreError) -> [ClusterNode] {
        try await rows(
            "read the live nodes",
            """
            SELECT id, name, started_at, heartbeat_at FROM node WHERE lease_until > extract(epoch FROM now())::float8
            ORDER BY started_at, id
            """
        ) { row in
            ClusterNode(
                id: try row.next(), name: try row.next(), startedAt: Date(timeIntervalSince1970: try row.next()),
                heartbeatAt: Date(timeIntervalSince1970: try row.next()))
        }
    }

    public func leave(nodeID: String) async throws(StoreError) {
        try await execute(
            "leave the cluster",
            "WITH gone AS (DELETE FROM node WHERE id = $1) DELETE FROM device_link WHERE node_id = $1",
            PostgresBindings(nodeID))
    }

    /// One statement: the unlinked devices' rows of this node go, and each linked device's row is this node's now,
    /// whichever node held it. A device in both lists ends up linked here.
    public func recordLinks(linked: [String], unlinked: [String]) async throws(StoreError) {
        guard !linked.isEmpty || !unlinked.isEmpty else { return }
        try await execute(
            "record \(linked.count) device links and \(unlinked.count) unlinks",
            """
            WITH unlinked AS (
                DELETE FROM device_link WHERE node_id = $1 AND device_id = ANY($3) AND NOT device_id = ANY($2)
            )
            INSERT INTO device_link (device_id, node_id, linked_at)
            SELECT DISTINCT linked.device_id, $1, extract(epoch FROM now())::float8 FROM unnest($2::text[]) AS linked(device_id)
            ON CONFLICT (device_id) DO UPDATE SET node_id = excluded.node_id, linked_at = excluded.linked_at
            """,
            PostgresBindings(nodeID, linked, unlinked))
    }

    public func deviceLinks() async throws(StoreError) -> [DeviceLinkRecord] {
        try await rows(
            "read the device links",
            """
            SELECT link.device_id, link.node_id, link.linked_at FROM device_link link JOIN node ON node.id = link.node_id
            WHERE node.lease_until > extract(epoch FROM now())::float8
            ORDER BY link.device_id
            """
        ) { row in
            DeviceLinkRecord(deviceID: try row.next(), nodeID: try row.next(), linkedAt: Date(timeIntervalSince1970: try row.next()))
        }
    }

    /// Reads the secret; when there is none, inserts `make()`'s unless another node's came first, and reads again: in
    /// READ COMMITTED the insert waits for a racing one to commit, and the second read sees the winner's.
    public func sharedSecret(named name: String, orCreate make: @Sendable () -> Data) async throws(StoreError) -> Data {
        let select = "SELECT value FROM secret WHERE name = $1"
        let read = { () async throws(StoreError) -> Data? in
            try await self.rows("read the secret \(name)", select, PostgresBindings(name)) { row in try row.next(Data.self) }.first
        }
        if let existing = try await read() { return existing }
        try await execute(
            "store the secret \(name)", "INSERT INTO secret (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            PostgresBindings(name, ByteBuffer(bytes: make())))
        guard let stored = try await read() else { throw StoreError(.conflict, "the secret \(name) was removed as it was stored") }
        return stored
    }
}
