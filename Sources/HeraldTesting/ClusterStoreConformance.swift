import Foundation
public import HeraldStore
import HeraldWire
import Testing

/// The behaviour every ``ClusterStore`` must have, one check per behaviour, each with several stores (nodes) on one
/// empty shared store, as nodes of a cluster have:
///
/// ```swift
/// @Test(arguments: ClusterStoreConformance.Behaviour.allCases)
/// func conforms(_ behaviour: ClusterStoreConformance.Behaviour) async throws {
///     let database = try await PostgresTestDatabase.create()
///     try await behaviour.check { nodeID in try await PostgresStore(url: database.url, nodeID: nodeID, logger: logger) }
/// }
/// ```
///
/// `makeStore` gives a new store (a new node) on the same shared store each time; its stores must remove a node whose
/// lease ran out at the next heartbeat of another (no retention past the lease), so that ``Behaviour/leases`` needs no
/// long wait.
public enum ClusterStoreConformance {
    public typealias MakeStore = @Sendable (_ nodeID: String) async throws -> any ClusterStore

    public enum Behaviour: String, CaseIterable, Sendable, CustomStringConvertible {
        case sharedWrites, commitNotices, pendingOnly, leases, deviceLinks, sharedSecrets

        public var description: String { rawValue }

        public func check(_ makeStore: MakeStore) async throws {
            switch self {
            case .sharedWrites: try await ClusterStoreConformance.sharedWrites(makeStore)
            case .commitNotices: try await ClusterStoreConformance.commitNotices(makeStore)
            case .pendingOnly: try await ClusterStoreConformance.pendingOnly(makeStore)
            case .leases: try await ClusterStoreConformance.leases(makeStore)
            case .deviceLinks: try await ClusterStoreConformance.deviceLinks(makeStore)
            case .sharedSecrets: try await ClusterStoreConformance.sharedSecrets(makeStore)
            }
        }
    }

    static func notification(to token: DeviceToken, deviceID: String? = nil, _ index: Int = 0) -> StoredNotification {
        StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: token, deviceID: deviceID, bundleID: "com.example.cluster",
            topic: "com.example.cluster", pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil,
            payload: Data(#"{"aps":{"alert":"n\#(index)"}}"#.utf8), receivedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
    }

    /// What one node writes, another reads.
    static func sharedWrites(_ makeStore: MakeStore) async throws {
        let (one, two) = (try await makeStore("node-one"), try await makeStore("node-two"))
        #expect(one.nodeID == "node-one" && two.nodeID == "node-two")
        let key = ProviderKey(
            teamID: "TEAM123456", keyID: "KEY1234567", topics: [], environment: .development, publicKeyPEM: "PEM",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        try await one.saveKey(key)
        #expect(try await two.key(teamID: "TEAM123456", keyID: "KEY1234567") == key)
        try await two.setStoragePolicy(.all(cap: 7), bundleID: "com.example.cluster")
        #expect(try await one.storagePolicy(bundleID: "com.example.cluster") == .all(cap: 7))

        let registered = try await one.register(owner: "device-a", bundleID: "com.example.cluster", environment: .development, at: Date())
        #expect(try await two.register(owner: "device-a", bundleID: "com.example.cluster", environment: .development, at: Date()) == registered)
        let committed = try await one.insertNotifications((0..<3).map { notification(to: registered.token, deviceID: "device-a", $0) })
        let ids = try #require(committed.first?.id)...(try #require(committed.last?.id))
        #expect(try await two.notifications(in: ids, pendingOnly: false) == committed)
        #expect(try await two.pendingNotifications(deviceID: "device-a", after: 0, limit: 10) == committed)
        try await two.markDelivered([ids.lowerBound], at: Date(timeIntervalSince1970: 1_700_000_100))
        #expect(try await one.notification(id: committed[0].uniqueID)?.delivery.state == .delivered)
    }

    /// Every commit, by any node, is announced once to every node's stream, in commit order, with the committing node
    /// and the contiguous ids it took; a commit that ended before another began has lower ids.
    static func commitNotices(_ makeStore: MakeStore) async throws {
        let (one, two) = (try await makeStore("node-one"), try await makeStore("node-two"))
        let logs = [CommitNoticeLog(one.commitNotices()), CommitNoticeLog(two.commitNotices())]
        defer { logs.forEach { $0.stop() } }
        for (index, log) in logs.enumerated() {
            #expect(await log.first(1) == [.resynchronize], "node \(index + 1)'s stream starts with resynchronize")
        }
        let token = DeviceToken.random()
        // Both nodes commit at once, many times.
        let commits = try await withThrowingTaskGroup(of: [CommitNotice].self) { group in
            for store in [one, two] {
                group.addTask {
                    var commits: [CommitNotice] = []
                    for round in 0..<10 {
                        let ids = try await store.insertNotifications((0...(round % 4)).map { notification(to: token, $0) }).compactMap(\.id)
                        #expect(ids.count == 1 + round % 4 && ids == Array(ids[0]...ids[ids.count - 1]), "a commit's ids are contiguous")
                        commits.append(.committed(nodeID: store.nodeID, ids: ids[0]...ids[ids.count - 1]))
                    }
                    return commits
                }
            }
            return try await group.reduce([], +)
        }
        // In commit order, which is id order: each commit's ids above the one before's.
        let ordered = commits.sorted { range(of: $0).lowerBound < range(of: $1).lowerBound }
        for (index, log) in logs.enumerated() {
            #expect(await log.first(1 + commits.count) == [.resynchronize] + ordered, "node \(index + 1) heard every commit once, in order")
        }
        // A commit after another returned has higher ids.
        let later = try #require(try await two.insertNotifications([notification(to: token)]).first?.id)
        #expect(later > range(of: ordered[ordered.count - 1]).upperBound)
        for log in logs {
            #expect(await log.first(2 + commits.count).last == .committed(nodeID: "node-two", ids: later...later))
        }
    }

    private static func range(of notice: CommitNotice) -> ClosedRange<Int64> {
        if case .committed(_, let ids) = notice { return ids }
        return 0...0
    }

    /// A range of ids read with `pendingOnly` holds only what is pending for a linked device.
    static func pendingOnly(_ makeStore: MakeStore) async throws {
        let store = try await makeStore("node-one")
        let app = try await store.register(owner: "device-a", bundleID: "com.example.cluster", environment: .development, at: Date())
        let committed = try await store.insertNotifications([
            notification(to: app.token, deviceID: "device-a", 0), notification(to: DeviceToken.random(), 1),
            notification(to: app.token, deviceID: "device-a", 2), notification(to: app.token, deviceID: "device-a", 3),
        ])
        let ids = committed.compactMap(\.id)
        try await store.markDelivered([ids[2]], at: Date(timeIntervalSince1970: 1_700_000_100))
        let range = ids[0]...ids[3]
        #expect(try await store.notifications(in: range, pendingOnly: true).compactMap(\.id) == [ids[0], ids[3]])
        #expect(try await store.notifications(in: range, pendingOnly: false).compactMap(\.id) == ids)
        #expect(try await store.notifications(in: ids[1]...ids[2], pendingOnly: true).isEmpty)
    }

    /// A node is live while its lease runs, by the store's clock; it leaves at once; a node whose lease ran out is
    /// removed, with its device links, by another's heartbeat.
    static func leases(_ makeStore: MakeStore) async throws {
        let (one, two) = (try await makeStore("node-one"), try await makeStore("node-two"))
        let started = Date(timeIntervalSince1970: 1_700_000_000)
        try await one.heartbeat(ClusterNode(id: "node-one", name: "one:2197", startedAt: started), lease: .seconds(60))
        try await two.heartbeat(ClusterNode(id: "node-two", name: "two:2197", startedAt: started.addingTimeInterval(1)), lease: .seconds(60))
        let live = try await two.liveNodes()
        #expect(live.map(\.id) == ["node-one", "node-two"], "oldest first")
        #expect(live.first?.name == "one:2197" && live.first?.startedAt == started && live.allSatisfy { $0.heartbeatAt != nil })
        try await one.recordLinks(linked: ["device-a"], unlinked: [])

        // A renewal for a millisecond: node one's lease runs out at once.
        try await one.heartbeat(ClusterNode(id: "node-one", name: "one:2197", startedAt: started), lease: .milliseconds(1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await two.liveNodes().map(\.id) == ["node-two"], "node one's lease ran out")
        // Node two's heartbeat removes node one and its links: a heartbeat of node one later does not bring them back.
        try await two.heartbeat(ClusterNode(id: "node-two", name: "two:2197", startedAt: started.addingTimeInterval(1)), lease: .seconds(60))
        try await one.heartbeat(ClusterNode(id: "node-one", name: "one:2197", startedAt: started), lease: .seconds(60))
        #expect(try await two.liveNodes().map(\.id) == ["node-one", "node-two"])
        #expect(try await two.deviceLinks().isEmpty)

        try await two.leave(nodeID: "node-two")
        #expect(try await one.liveNodes().map(\.id) == ["node-one"])
    }

    /// A device linked to a node moves when another records it; a node's unlink touches only its own link; the links
    /// of a node whose lease ran out, or that left, are not listed.
    static func deviceLinks(_ makeStore: MakeStore) async throws {
        let (one, two) = (try await makeStore("node-one"), try await makeStore("node-two"))
        let started = Date(timeIntervalSince1970: 1_700_000_000)
        try await one.heartbeat(ClusterNode(id: "node-one", name: "one", startedAt: started), lease: .seconds(60))
        try await two.heartbeat(ClusterNode(id: "node-two", name: "two", startedAt: started), lease: .seconds(60))
        let linked = { try await one.deviceLinks().map { "\($0.deviceID)@\($0.nodeID)" } }

        try await one.recordLinks(linked: ["device-a", "device-b", "device-a"], unlinked: [])
        try await two.recordLinks(linked: ["device-b"], unlinked: [])
        #expect(try await linked() == ["device-a@node-one", "device-b@node-two"])
        let before = Date().addingTimeInterval(-60)
        #expect(try await two.deviceLinks().allSatisfy { $0.linkedAt > before })

        // Node one no longer holds device b: its unlink leaves node two's link alone.
        try await one.recordLinks(linked: [], unlinked: ["device-b"])
        #expect(try await linked() == ["device-a@node-one", "device-b@node-two"])
        try await two.recordLinks(linked: ["device-c"], unlinked: ["device-b"])
        #expect(try await linked() == ["device-a@node-one", "device-c@node-two"])

        // Node one's lease runs out: its links are hidden.
        try await one.heartbeat(ClusterNode(id: "node-one", name: "one", startedAt: started), lease: .milliseconds(1))
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await linked() == ["device-c@node-two"])
        try await two.leave(nodeID: "node-two")
        #expect(try await linked().isEmpty)
    }

    /// Nodes racing to create a secret all get the one stored first; later calls get it without making another.
    static func sharedSecrets(_ makeStore: MakeStore) async throws {
        let stores = [try await makeStore("node-one"), try await makeStore("node-two")]
        let values = try await withThrowingTaskGroup(of: Data.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await stores[index % 2].sharedSecret(named: "admin-token") { Data("value \(index)".utf8) }
                }
            }
            return try await group.reduce(into: Set<Data>()) { $0.insert($1) }
        }
        #expect(values.count == 1)
        let again = try await stores[1].sharedSecret(named: "admin-token") {
            Issue.record("a secret already stored is not made again")
            return Data()
        }
        #expect(Set([again]) == values)
        #expect(try await stores[0].sharedSecret(named: "ca-key") { Data("ca".utf8) } == Data("ca".utf8))
    }
}
