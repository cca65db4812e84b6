import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldPostgres
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import Testing

/// Three gateway nodes on loopback sharing one PostgreSQL database: a provider and a device may each reach any of them.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct ClusterTests {
    /// The nodes, each a real gateway with its own store handle, data directory and ports.
    struct Cluster {
        let database: PostgresTestDatabase
        let nodes: [TestGateway]
        let stores: [PostgresStore]

        static func start(nodes count: Int = 3) async throws -> Cluster {
            let database = try await PostgresTestDatabase.create()
            let logger = Logger(label: "herald-test") { _ in SwiftLogNoOpLogHandler() }
            let key = P256.Signing.PrivateKey()
            var nodes: [TestGateway] = []
            var stores: [PostgresStore] = []
            for index in 0..<count {
                // A parallel run on 2 cores can keep PostgreSQL from finishing a login within the default 5 s.
                var configuration = PostgresStore.Configuration()
                configuration.connectTimeout = .seconds(30)
                let store = try await PostgresStore(
                    url: database.url, nodeID: "node-\(index)-\(UUID().uuidString)", configuration: configuration, logger: logger)
                stores.append(store)
                nodes.append(try await TestGateway.start(store: store, privateKey: key) { $0.nodeName = "node-\(index)" })
            }
            return Cluster(database: database, nodes: nodes, stores: stores)
        }

        func stop() async throws {
            for node in nodes { try await node.stop() }
            for store in stores { await store.close() }
            try await database.drop()
        }

        /// Sends `text` through `node` and returns the answer.
        func push(
            through node: Int, to token: String, _ text: String, change: (inout Push) -> Void = { _ in }
        ) async throws -> APNsResponse {
            let gateway = nodes[node]
            var push = Push(token: token, jwt: gateway.defaultJWT)
            push.body = Data(#"{"aps":{"alert":"\#(text)"}}"#.utf8)
            change(&push)
            let connection = try await gateway.connect()
            let response = try await connection.send(push)
            await connection.close()
            return response
        }

        /// A device linked to `node` with the app registered; its token.
        func device(on node: Int, key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) async throws -> (TestDevice, String) {
            let device = try await TestDevice.connect(to: nodes[node], key: key)
            return (device, try await device.register(TestGateway.topic))
        }

        /// Waits until every node's admin API shows the device offline (its link's end is recorded in the store).
        func waitUntilOffline(_ deviceID: String) async throws {
            for node in nodes {
                try await waitUntil {
                    let devices = try await AdminClient(gateway: node).get("/v1/devices").body["devices"]
                    return devices?.first { $0["deviceID"]?.stringValue == deviceID }?["online"] == .bool(false)
                }
            }
        }

        /// Waits until every node shows the device online.
        func waitUntilOnline(_ deviceID: String) async throws {
            for node in nodes {
                try await waitUntil {
                    let devices = try await AdminClient(gateway: node).get("/v1/devices").body["devices"]
                    return devices?.first { $0["deviceID"]?.stringValue == deviceID }?["online"] == .bool(true)
                }
            }
        }
    }

    private func text(of notification: LinkNotification) throws -> String? {
        try JSONValue.parse(notification.payload)["aps"]?["alert"]?.stringValue
    }

    /// A channel made through one node's management port takes broadcasts through another node's provider port, and
    /// the channel kept on the shared store holds the latest for every node.
    @Test func aChannelMadeOnOneNodeTakesBroadcastsOnAnother() async throws {
        let cluster = try await Cluster.start(nodes: 2)
        let channels = try await ChannelManagementTests.Channels.open(cluster.nodes[0])
        let id = try #require(try await channels.create(policy: 1).header("apns-channel-id"))
        let connection = try await cluster.nodes[1].connect()
        let expiration = String(Int64(cluster.nodes[1].clock.now().timeIntervalSince1970) + 600)
        let answer = try await BroadcastTests.broadcast(connection, cluster.nodes[1], channel: id, expiration: expiration)
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let kept = try await cluster.stores[0].latestBroadcast(channelID: id)
        #expect(kept?.uniqueID == answer.uniqueID.flatMap(APNsID.parse))
        let listed = try await ChannelManagementTests.Channels.open(cluster.nodes[1]).call("GET", "/1/apps/\(TestGateway.topic)/all-channels")
        #expect(try JSONValue.parse(listed.body) == .object(["channels": .array([.string(id)])]))

        // A device subscribed through node 0 gets the next broadcast through node 1 at once, and the kept one when it
        // comes back to node 1.
        let key = P256.Signing.PrivateKey()
        let (device, _) = try await cluster.device(on: 0, key: key)
        let received = try await device.subscribing(to: id)
        #expect(received.uniqueID == answer.uniqueID.flatMap(APNsID.parse))  // the kept one, on subscribing
        device.acknowledge(received)
        let next = try await BroadcastTests.broadcast(connection, cluster.nodes[1], channel: id, expiration: expiration)
        #expect(next.status == 200)
        let live = try await device.notification(timeout: .seconds(5))
        #expect(live.uniqueID == next.uniqueID.flatMap(APNsID.parse) && live.channelID == id)
        await device.leave()
        try await cluster.waitUntilOffline(device.deviceID)
        let later = try await BroadcastTests.broadcast(try await cluster.nodes[0].connect(), cluster.nodes[0], channel: id, expiration: expiration)
        #expect(later.status == 200)
        let back = try await TestDevice.connect(to: cluster.nodes[1], key: key)
        let comeback = try await back.notification(timeout: .seconds(5))
        #expect(comeback.uniqueID == later.uniqueID.flatMap(APNsID.parse))
        await back.leave()
        await connection.close()
        try await cluster.stop()
    }

    @Test func aNotificationAcceptedOnOneNodeReachesADeviceLinkedToAnotherAtOnce() async throws {
        let cluster = try await Cluster.start()
        let (device, token) = try await cluster.device(on: 1)
        for node in [0, 2, 1] {
            let response = try await cluster.push(through: node, to: token, "via \(node)")
            #expect(response.status == 200)
            let notification = try await device.notification(timeout: .seconds(5))
            #expect(try text(of: notification) == "via \(node)")
            #expect(APNsID.format(notification.apnsID) == response.apnsID)
            device.acknowledge(notification)
        }
        await device.leave()
        try await cluster.stop()
    }

    @Test func aDeviceOnlineOnAnotherNodeGetsEveryNotificationNotOnlyTheLatest() async throws {
        // APNs' policy keeps only the latest for an offline device; this one is online, on node 1.
        let cluster = try await Cluster.start()
        let (device, token) = try await cluster.device(on: 1)
        try await cluster.waitUntilOnline(device.deviceID)
        for index in 1...3 { #expect(try await cluster.push(through: 0, to: token, "n\(index)").status == 200) }
        var texts: [String?] = []
        for _ in 1...3 {
            let notification = try await device.notification(timeout: .seconds(5))
            texts.append(try text(of: notification))
            device.acknowledge(notification)
        }
        #expect(texts == ["n1", "n2", "n3"])
        let stored = try await cluster.stores[2].notifications(matching: .all, before: nil, limit: 10)
        #expect(stored.allSatisfy { $0.delivery.storedAt == nil }, "none was stored as for an offline device")
        await device.leave()
        try await cluster.stop()
    }

    @Test func aDeviceMovingToAnotherNodeGetsWhatWasStoredForIt() async throws {
        let cluster = try await Cluster.start()
        let (device, token) = try await cluster.device(on: 0)
        await device.leave()
        try await cluster.waitUntilOffline(device.deviceID)
        #expect(try await cluster.push(through: 1, to: token, "while away").status == 200)

        let moved = try await TestDevice.connect(to: cluster.nodes[2], key: device.key)
        let notification = try await moved.notification(timeout: .seconds(5))
        #expect(try text(of: notification) == "while away")
        moved.acknowledge(notification)
        // And it keeps getting new ones there, from any node.
        #expect(try await cluster.push(through: 0, to: token, "after the move").status == 200)
        #expect(try text(of: try await moved.notification(timeout: .seconds(5))) == "after the move")
        await moved.leave()
        try await cluster.stop()
    }

    @Test func storageRulesHoldWhicheverNodesAcceptedTheNotifications() async throws {
        let cluster = try await Cluster.start()
        try await cluster.stores[0].setStoragePolicy(StoragePolicy(kind: .all, cap: 3), bundleID: TestGateway.topic)
        let (device, token) = try await cluster.device(on: 0)
        await device.leave()
        try await cluster.waitUntilOffline(device.deviceID)

        // all, cap 3: the oldest past the cap goes; a collapse id replaces the earlier one; expiration 0 is not kept.
        #expect(try await cluster.push(through: 0, to: token, "first").status == 200)
        #expect(try await cluster.push(through: 1, to: token, "score 1-0") { $0.collapseID = "score" }.status == 200)
        #expect(try await cluster.push(through: 2, to: token, "second").status == 200)
        #expect(try await cluster.push(through: 0, to: token, "score 2-0") { $0.collapseID = "score" }.status == 200)
        #expect(try await cluster.push(through: 1, to: token, "now or never") { $0.expiration = 0 }.status == 200)
        #expect(try await cluster.push(through: 2, to: token, "third").status == 200)

        let back = try await TestDevice.connect(to: cluster.nodes[1], key: device.key)
        var texts: [String?] = []
        for _ in 1...3 {
            let notification = try await back.notification(timeout: .seconds(5))
            texts.append(try text(of: notification))
            back.acknowledge(notification)
        }
        #expect(texts == ["second", "score 2-0", "third"])
        #expect(try await back.next(timeout: .milliseconds(300)) == nil)
        await back.leave()

        // latest: only the newest is kept, whichever node took it.
        try await cluster.stores[2].setStoragePolicy(.latest, bundleID: TestGateway.topic)
        try await cluster.waitUntilOffline(device.deviceID)
        for node in 0..<3 { #expect(try await cluster.push(through: node, to: token, "latest \(node)").status == 200) }
        let again = try await TestDevice.connect(to: cluster.nodes[0], key: device.key)
        #expect(try text(of: try await again.notification(timeout: .seconds(5))) == "latest 2")
        #expect(try await again.next(timeout: .milliseconds(300)) == nil)
        await again.leave()
        try await cluster.stop()
    }

    @Test func everyNodesDeliveryLogListsWhatEveryNodeAccepted() async throws {
        let cluster = try await Cluster.start()
        let token = try await cluster.nodes[0].issueToken()
        var ids: Set<String> = []
        for node in 0..<3 {
            let response = try await cluster.push(through: node, to: token, "logged \(node)")
            #expect(response.status == 200)
            if let id = response.apnsID { ids.insert(id) }
        }
        for node in cluster.nodes {
            let page = try await AdminClient(gateway: node).get("/v1/notifications").body["notifications"]
            guard case .array(let entries)? = page else {
                Issue.record("the log answers a page")
                continue
            }
            let listed = Set(entries.compactMap { $0["apnsID"]?.stringValue })
            #expect(listed == ids)
        }
        try await cluster.stop()
    }

    @Test func anUnregisteredAppGets410FromEveryNode() async throws {
        let cluster = try await Cluster.start()
        let (device, token) = try await cluster.device(on: 1)
        device.send(.unregister(topic: TestGateway.topic))
        guard case .unregistered? = try await device.next() else {
            Issue.record("the gateway confirms the unregistration")
            return
        }
        for node in 0..<3 {
            let response = try await cluster.push(through: node, to: token, "gone")
            #expect(response.status == 410)
            #expect(response.reason == .unregistered)
        }
        await device.leave()
        try await cluster.stop()
    }

    /// Retired on one node, told by the node the device is linked to, and announced on every node's event stream.
    @Test func aTokenRetiredOnOneNodeIsToldToItsDeviceOnAnother() async throws {
        let cluster = try await Cluster.start(nodes: 2)
        let events = try await RetirementTests.Events(cluster.nodes[0])
        let (device, token) = try await cluster.device(on: 1)
        let answer = try await AdminClient(gateway: cluster.nodes[0]).request("POST", "/v1/tokens/\(token)/unregister", body: "{}")
        #expect(answer.status == 200)
        #expect(try await device.next() == .unregistered(topic: TestGateway.topic, deviceToken: token))
        #expect(try await events.unregistered(of: token)["reason"]?.stringValue == "unregistered")
        await device.leave()
        try await cluster.stop()
    }

    @Test func everyNodeSharesOneAdminTokenAndOneCertificateAuthority() async throws {
        let cluster = try await Cluster.start()
        let tokens = Set(cluster.nodes.map(\.gateway.adminToken))
        #expect(tokens.count == 1)
        let authorities = try Set(cluster.nodes.map { try Data(contentsOf: URL(fileURLWithPath: $0.caPath)) })
        #expect(authorities.count == 1)
        // A client trusting one node's CA reaches every node.
        let token = try await cluster.nodes[0].issueToken()
        for node in cluster.nodes {
            var push = Push(token: token, jwt: node.defaultJWT)
            push.body = Data(#"{"aps":{"alert":"trusted"}}"#.utf8)
            let connection = try await APNsConnection.connect(to: node.url, trusting: cluster.nodes[0].caPath)
            #expect(try await connection.send(push).status == 200)
            await connection.close()
        }
        try await cluster.stop()
    }

    @Test func eachNodeSeesTheOthersLive() async throws {
        let cluster = try await Cluster.start()
        try await waitUntil { try await cluster.stores[0].liveNodes().count == 3 }
        #expect(Set(try await cluster.stores[1].liveNodes().map(\.name)) == ["node-0", "node-1", "node-2"])
        try await cluster.nodes[2].stop()  // a graceful stop leaves at once
        #expect(Set(try await cluster.stores[0].liveNodes().map(\.name)) == ["node-0", "node-1"])
        for node in cluster.nodes.prefix(2) { try await node.stop() }
        for store in cluster.stores { await store.close() }
        try await cluster.database.drop()
    }
}
