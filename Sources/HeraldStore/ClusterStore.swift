public import Foundation

/// A store that several gateway nodes share (PostgreSQL): besides what every ``Store`` keeps, it tells each node
/// what the others committed, which nodes are alive, and which node each linked device is on.
///
/// Notification ids are assigned in commit order across the whole cluster: a notification committed later, by any
/// node, has a higher id. A device's link relies on that: it reads what is pending after the last id it handled.
public protocol ClusterStore: Store {
    /// This node's id, which the store puts in every ``CommitNotice`` of its commits.
    var nodeID: String { get }

    /// Every commit of notifications, by any node, in commit order; ``CommitNotice/resynchronize`` first, and again
    /// whenever notices may have been missed (the store's listening connection was lost and is back). The stream
    /// ends when the store closes.
    func commitNotices() -> AsyncStream<CommitNotice>

    /// The notifications with ids in `ids`: only those pending for a linked device when `pendingOnly`, else every
    /// one (the console's live log). In id order.
    func notifications(in ids: ClosedRange<Int64>, pendingOnly: Bool) async throws(StoreError) -> [StoredNotification]

    /// Renews this node's lease (and records `node` the first time), and removes nodes whose lease ran out long ago
    /// with the device links they held. The lease is timed by the store's clock, not the node's.
    func heartbeat(_ node: ClusterNode, lease: Duration) async throws(StoreError)
    /// Every node whose lease has not run out, oldest first.
    func liveNodes() async throws(StoreError) -> [ClusterNode]
    /// Leaves the cluster: the node's lease and device links go at once.
    func leave(nodeID: String) async throws(StoreError)

    /// Records that devices linked to this node (`linked`) and left it (`unlinked`); a device linked here moves
    /// from whichever node held it.
    func recordLinks(linked: [String], unlinked: [String]) async throws(StoreError)
    /// The devices linked to nodes whose lease has not run out, with their node and when they linked.
    func deviceLinks() async throws(StoreError) -> [DeviceLinkRecord]

    /// The secret stored under `name` (the admin token, the local CA's key and certificate), storing `make()`'s
    /// value first when there is none: nodes that race get the same one.
    func sharedSecret(named name: String, orCreate make: @Sendable () -> Data) async throws(StoreError) -> Data
}

/// What a node learns of a commit (``ClusterStore/commitNotices()``).
public enum CommitNotice: Sendable, Hashable {
    /// The node `nodeID` committed the notifications with these ids (every id in the range is one of them).
    case committed(nodeID: String, ids: ClosedRange<Int64>)
    /// Notices may have been missed: whatever waits on them must read the store again.
    case resynchronize
}

/// One gateway node of a cluster.
public struct ClusterNode: Sendable, Hashable, Codable {
    /// Unique for each run of a node: a restarted node is a new one.
    public var id: String
    /// What a person calls it (the host name and ports, or a configured name).
    public var name: String
    public var startedAt: Date
    /// Set by the store: the last heartbeat, by the store's clock.
    public var heartbeatAt: Date?

    public init(id: String, name: String, startedAt: Date, heartbeatAt: Date? = nil) {
        self.id = id
        self.name = name
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
    }
}

/// A device's link to a node.
public struct DeviceLinkRecord: Sendable, Hashable {
    public var deviceID: String
    public var nodeID: String
    public var linkedAt: Date

    public init(deviceID: String, nodeID: String, linkedAt: Date) {
        self.deviceID = deviceID
        self.nodeID = nodeID
        self.linkedAt = linkedAt
    }
}
