import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import Testing

/// The channel management API (iOS 18 broadcast channels) over TLS and HTTP/2 on its own port, as Apple's management
/// host serves it: each call, its answer's headers and body, and each refusal's status and reason.
@Suite struct ChannelManagementTests {
    /// A connection to the gateway's channel management port and the calls a provider makes on it.
    struct Channels {
        let gateway: TestGateway
        let connection: APNsConnection

        static func open(_ gateway: TestGateway) async throws -> Channels {
            let url = URL(string: "https://localhost:\(gateway.gateway.channelsPort)")!
            return Channels(gateway: gateway, connection: try await APNsConnection.connect(to: url, trusting: gateway.caPath))
        }

        func call(
            _ method: String, _ path: String = "/1/apps/\(TestGateway.topic)/channels", jwt: String? = nil, headers: [(String, String)] = [],
            body: String = ""
        ) async throws -> APNsResponse {
            var fields: [(name: String, value: String)] = [(":method", method), (":scheme", "https"), (":path", path), (":authority", "localhost")]
            // One token per connection, as providers reuse theirs (a new one within 20 minutes is refused).
            let jwt = jwt ?? gateway.defaultJWT
            if !jwt.isEmpty { fields.append(("authorization", "bearer \(jwt)")) }
            fields += headers.map { (name: $0.0, value: $0.1) }
            return try await connection.send(headers: fields, body: Data(body.utf8))
        }

        func create(policy: Int = 1) async throws -> APNsResponse {
            try await call("POST", body: #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#)
        }
    }

    @Test func aChannelIsCreatedReadListedAndDeleted() async throws {
        let gateway = try await TestGateway.start()
        let channels = try await Channels.open(gateway)
        let requestID = "5f4dcc3b-5aa7-65d6-1d83-27de882cf99a"
        let created = try await channels.call(
            "POST", headers: [("apns-request-id", requestID.uppercased())], body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
        #expect(created.status == 201)
        #expect(created.body.isEmpty)
        #expect(created.header("apns-request-id") == requestID)  // echoed, in canonical lowercase
        let id = try #require(created.header("apns-channel-id"))
        #expect(Data(base64Encoded: id)?.count == 16)

        let second = try await channels.create(policy: 0)
        #expect(second.status == 201)
        #expect(APNsID.parse(try #require(second.header("apns-request-id"))) != nil)  // made up when none was sent
        let secondID = try #require(second.header("apns-channel-id"))

        let read = try await channels.call("GET", headers: [("apns-channel-id", id)])
        #expect(read.status == 200)
        #expect(try JSONValue.parse(read.body) == .object(["message-storage-policy": .integer(1), "push-type": .string("LiveActivity")]))
        #expect(
            try JSONValue.parse(try await channels.call("GET", headers: [("apns-channel-id", secondID)]).body)["message-storage-policy"]
                == .integer(0))

        let all = try await channels.call("GET", "/1/apps/\(TestGateway.topic)/all-channels")
        #expect(all.status == 200)
        guard case .array(let listed) = try JSONValue.parse(all.body)["channels"] else {
            Issue.record("no channels array: \(String(decoding: all.body, as: UTF8.self))")
            return
        }
        #expect(Set(listed.compactMap(\.stringValue)) == [id, secondID] && listed.count == 2)

        let deleted = try await channels.call("DELETE", headers: [("apns-channel-id", id)])
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        #expect(try await channels.call("GET", headers: [("apns-channel-id", id)]).reason == .channelNotRegistered)
        let again = try await channels.call("DELETE", headers: [("apns-channel-id", id)])
        #expect(again.status == 404 && again.reason == .badPath)  // as APNs has been seen to answer
        let remaining = try await channels.call("GET", "/1/apps/\(TestGateway.topic)/all-channels")
        #expect(try JSONValue.parse(remaining.body)["channels"] == .array([.string(secondID)]))
        // Stored: the record outlives the deletion, so the id is never handed out again.
        #expect(try await gateway.store.channel(id: id)?.deletedAt != nil)
        try await gateway.stop()
    }

    /// Each refusal as Apple's error table names it (docs/provider-api.md says where Herald chose).
    @Test func refusalsCarryApplesStatusAndReason() async throws {
        let gateway = try await TestGateway.start { $0.channelLimit = 2 }
        let channels = try await Channels.open(gateway)
        let app = "/1/apps/\(TestGateway.topic)/channels"
        let cases: [(response: APNsResponse, status: Int, reason: APNsReason)] = [
            (try await channels.call("POST", body: #"{"message-storage-policy": 1}"#), 400, .missingPushType),
            (try await channels.call("POST", body: #"{"message-storage-policy": 1, "push-type": "alert"}"#), 400, .invalidPushType),
            (try await channels.call("POST", body: #"{"push-type": "LiveActivity"}"#), 400, .missingChannelQueueSize),
            (try await channels.call("POST", body: #"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#), 400, .badRequestParams),
            (
                try await channels.call("POST", body: #"{"message-storage-policy": 1, "push-type": "LiveActivity", "name": "x"}"#), 400,
                .badRequestParams
            ),
            (try await channels.call("POST", body: "not json"), 400, .badRequestPayload),
            (try await channels.call("POST"), 400, .payloadEmpty),
            (try await channels.call("GET"), 400, .missingChannelID),
            (try await channels.call("GET", headers: [("apns-channel-id", "not base64!")]), 400, .badChannelID),
            (try await channels.call("GET", headers: [("apns-channel-id", BroadcastChannel.newID())]), 400, .channelNotRegistered),
            (try await channels.call("GET", headers: [("apns-request-id", "1234")]), 400, .badMessageID),
            (try await channels.call("GET", "/1/apps/\(TestGateway.topic)/topics"), 404, .badPath),
            (try await channels.call("GET", "/3/device/abcd"), 404, .badPath),
            (try await channels.call("PUT", app), 405, .methodNotAllowed),
            (try await channels.call("POST", "/1/apps/\(TestGateway.topic)/all-channels"), 405, .methodNotAllowed),
            (try await channels.call("GET", "/1/apps/\(TestGateway.topic).push-type.liveactivity/all-channels"), 400, .topicDisallowed),
            (try await channels.call("GET", "/1/apps/\(TestGateway.topic)/all-channels", jwt: ""), 403, .missingProviderToken),
            (try await Channels.open(gateway).call("GET", "/1/apps/\(TestGateway.topic)/all-channels", jwt: "a.b.c"), 403, .invalidProviderToken),
        ]
        for (index, item) in cases.enumerated() {
            #expect(item.response.status == item.status, "case \(index)")
            #expect(item.response.reason == item.reason, "case \(index): \(String(decoding: item.response.body, as: UTF8.self))")
            #expect(item.response.header("content-type") == "application/json" && item.response.header("apns-request-id") != nil)
        }
        // An hour-old token, and a key that does not cover the app.
        let old = try gateway.jwt(issuedAt: gateway.clock.now().addingTimeInterval(-3601))
        let fresh = try await Channels.open(gateway)
        #expect(try await fresh.call("GET", "/1/apps/\(TestGateway.topic)/all-channels", jwt: old).reason == .expiredProviderToken)
        let narrow = try await gateway.addKey(teamID: TestGateway.teamID, keyID: "NARROWKEY1", topics: ["com.example.other"])
        let other = try await Channels.open(gateway)
        let mismatch = try await other.call(
            "GET", "/1/apps/\(TestGateway.topic)/all-channels", jwt: try gateway.jwt(keyID: "NARROWKEY1", key: narrow))
        #expect(mismatch.status == 403 && mismatch.reason == .topicMismatch)

        // The limit, per app and environment: a deletion frees a place.
        let first = try #require(try await channels.create().header("apns-channel-id"))
        #expect(try await channels.create().status == 201)
        let refused = try await channels.create()
        #expect(refused.status == 400 && refused.reason == .cannotCreateChannelConfig)
        #expect(
            try await channels.call(
                "POST", "/1/apps/com.example.other/channels", body: #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#
            ).status == 201)
        #expect(try await channels.call("DELETE", headers: [("apns-channel-id", first)]).status == 204)
        #expect(try await channels.create().status == 201)
        try await gateway.stop()
    }

    /// node-apn's spellings: `"push-type": "liveactivity"` (its default) and the policy as a string (its README).
    @Test func nodeAPNsSpellingsAreTaken() async throws {
        let gateway = try await TestGateway.start()
        let channels = try await Channels.open(gateway)
        let created = try await channels.call("POST", body: #"{"message-storage-policy": "0", "push-type": "liveactivity"}"#)
        #expect(created.status == 201)
        let id = try #require(created.header("apns-channel-id"))
        #expect(try await gateway.store.channel(id: id)?.storagePolicy == .noMessageStored)
        try await gateway.stop()
    }

    /// A channel belongs to its app: another app's path does not reach it.
    @Test func aChannelIsItsAppsOnly() async throws {
        let gateway = try await TestGateway.start()
        let channels = try await Channels.open(gateway)
        let id = try #require(try await channels.create().header("apns-channel-id"))
        let elsewhere = try await channels.call("GET", "/1/apps/com.example.other/channels", headers: [("apns-channel-id", id)])
        #expect(elsewhere.reason == .channelNotRegistered)
        #expect(try await channels.call("DELETE", "/1/apps/com.example.other/channels", headers: [("apns-channel-id", id)]).status == 404)
        #expect(try await channels.call("GET", headers: [("apns-channel-id", id)]).status == 200)
        try await gateway.stop()
    }

    /// Certificate-based authentication, as Apple's management host takes it: the certificate's topics decide.
    @Test func aClientCertificateAuthenticates() async throws {
        let gateway = try await TestGateway.start()
        let url = URL(string: "https://localhost:\(gateway.gateway.channelsPort)")!
        let certificate = try gateway.clientCertificate(topics: [TestGateway.topic])
        let channels = Channels(
            gateway: gateway, connection: try await APNsConnection.connect(to: url, trusting: gateway.caPath, clientCertificate: certificate))
        let created = try await channels.call("POST", jwt: "", body: #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#)
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let elsewhere = try await channels.call("GET", "/1/apps/com.example.other/all-channels", jwt: "")
        #expect(elsewhere.status == 403 && elsewhere.reason == .topicMismatch)
        try await gateway.stop()
    }

    /// As on the provider port: a connection that sends nothing is closed (no HTTP/2 yet: no GOAWAY).
    @Test func aSilentConnectionIsClosed() async throws {
        let gateway = try await TestGateway.start { $0.providerHandshakeTimeout = .milliseconds(300) }
        let silent = try await RawTCPConnection.connect(port: gateway.gateway.channelsPort)
        #expect(try await silent.bytesUntilClosed(timeout: .seconds(10)) != nil, "a connection that sent nothing stays open")
        try await gateway.stop()
    }

    /// As on the provider port: a connection with no traffic for the idle timeout gets GOAWAY IdleTimeout and closes.
    @Test func anIdleConnectionGetsGoAwayIdleTimeout() async throws {
        let gateway = try await TestGateway.start { $0.idleTimeout = .seconds(2) }
        let channels = try await Channels.open(gateway)
        #expect(try await channels.create().status == 201)
        await channels.connection.waitUntilClosed()
        #expect(channels.connection.observedState.goAwayReason == .idleTimeout)
        try await gateway.stop()
    }

    /// A gateway shutting down closes the management connections open on it, as the provider port does its own.
    @Test func shutdownClosesOpenConnections() async throws {
        let gateway = try await TestGateway.start()
        let channels = try await Channels.open(gateway)
        #expect(try await channels.create().status == 201)
        try await gateway.stop()
        let deadline = ContinuousClock.now + .seconds(10)
        while channels.connection.isActive && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!channels.connection.isActive)
    }

    /// A connection's calls run in the order they arrived, so a provider moving from an older token to a newer one (30
    /// minutes apart: allowed) is not refused for the reverse order.
    @Test func callsOfOneConnectionRunInArrivalOrder() async throws {
        let gateway = try await TestGateway.start()
        let channels = try await Channels.open(gateway)
        let older = try gateway.jwt(issuedAt: gateway.clock.now().addingTimeInterval(-1800))
        var pending: [APNsPendingRequest] = []
        for (index, jwt) in [older, gateway.defaultJWT].enumerated() {
            let headers: [(name: String, value: String)] = [
                (":method", "GET"), (":scheme", "https"), (":path", "/1/apps/\(TestGateway.topic)/all-channels"), (":authority", "localhost"),
                ("authorization", "bearer \(jwt)"), ("apns-request-id", "00000000-0000-0000-0000-00000000000\(index)"),
            ]
            pending.append(try await channels.connection.startRequest(headers: headers, endStream: true))
        }
        for request in pending {
            let answer = try await request.finish(body: Data())
            #expect(answer.status == 200, "\(answer.header("apns-request-id") ?? "") \(String(decoding: answer.body, as: UTF8.self))")
        }
        try await gateway.stop()
    }
}
