import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// Broadcasts (iOS 18) on the provider port, to channels the channel management API made: the answer's ids, what a
/// channel keeps, and each refusal's status and reason.
@Suite struct BroadcastTests {
    static let update = #"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"score":"2-1"}}}"#

    /// A channel of the test app, made as the management API makes them.
    static func channel(_ gateway: TestGateway, policy: ChannelStoragePolicy) async throws -> BroadcastChannel {
        let channel = BroadcastChannel(bundleID: TestGateway.topic, environment: .development, storagePolicy: policy, createdAt: gateway.clock.now())
        #expect(try await gateway.store.createChannel(channel, limit: 10))
        return channel
    }

    static func broadcast(
        _ connection: APNsConnection, _ gateway: TestGateway, channel: String?, expiration: String? = "0", priority: String? = "10",
        pushType: String? = "liveactivity", path: String = "/4/broadcasts/apps/\(TestGateway.topic)", extra: [(String, String)] = [],
        jwt: String? = nil, body: String = update
    ) async throws -> APNsResponse {
        var headers: [(name: String, value: String)] = [
            (":method", "POST"), (":scheme", "https"), (":path", path), (":authority", "localhost"),
            ("authorization", "bearer \(jwt ?? gateway.defaultJWT)"),
        ]
        for (name, value) in [
            ("apns-channel-id", channel), ("apns-expiration", expiration), ("apns-priority", priority), ("apns-push-type", pushType),
        ] {
            if let value { headers.append((name, value)) }
        }
        headers += extra.map { (name: $0.0, value: $0.1) }
        return try await connection.send(headers: headers, body: Data(body.utf8))
    }

    @Test func aBroadcastIsAcceptedAndTheChannelKeepsItsLatest() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let stored = try await Self.channel(gateway, policy: .mostRecentMessageStored)
        let requestID = "5f4dcc3b-5aa7-65d6-1d83-27de882cf99a"
        let expiration = Int64(gateway.clock.now().timeIntervalSince1970) + 600
        let answer = try await Self.broadcast(
            connection, gateway, channel: stored.id, expiration: String(expiration), extra: [("apns-request-id", requestID)])
        #expect(answer.status == 200 && answer.body.isEmpty, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(answer.header("apns-request-id") == requestID && answer.header("apns-id") == nil)
        let uniqueID = try #require(answer.uniqueID.flatMap(APNsID.parse))
        let kept = try #require(try await gateway.store.latestBroadcast(channelID: stored.id))
        #expect(kept.uniqueID == uniqueID && kept.payload == Data(Self.update.utf8) && kept.priority == 10)
        #expect(Int64(kept.expiresAt.timeIntervalSince1970) == expiration)

        // The next replaces it; expiration 0 is delivered once and never kept; past 8 hours the channel keeps 8 hours.
        let far = Int64(gateway.clock.now().timeIntervalSince1970) + 86_400
        #expect(try await Self.broadcast(connection, gateway, channel: stored.id, expiration: String(far), priority: "5").status == 200)
        let replaced = try #require(try await gateway.store.latestBroadcast(channelID: stored.id))
        #expect(replaced.priority == 5 && replaced.uniqueID != uniqueID)
        #expect(abs(replaced.expiresAt.timeIntervalSince(gateway.clock.now().addingTimeInterval(8 * 3600))) < 0.001)
        #expect(try await Self.broadcast(connection, gateway, channel: stored.id, expiration: "0").status == 200)
        #expect(try await gateway.store.latestBroadcast(channelID: stored.id) == replaced)

        // A channel that stores nothing takes expiration 0 only, and keeps nothing.
        let unstored = try await Self.channel(gateway, policy: .noMessageStored)
        #expect(try await Self.broadcast(connection, gateway, channel: unstored.id).status == 200)
        #expect(try await gateway.store.latestBroadcast(channelID: unstored.id) == nil)
        let refused = try await Self.broadcast(connection, gateway, channel: unstored.id, expiration: String(expiration))
        #expect(refused.status == 400 && refused.reason == .badExpirationDate)
        try await gateway.stop()
    }

    @Test func refusalsCarryApplesStatusAndReason() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let live = try await Self.channel(gateway, policy: .mostRecentMessageStored).id
        let deleted = try await Self.channel(gateway, policy: .noMessageStored).id
        #expect(try await gateway.store.deleteChannel(id: deleted, at: gateway.clock.now()))
        let otherApp = BroadcastChannel(bundleID: "com.example.other", environment: .development, storagePolicy: .noMessageStored, createdAt: Date())
        #expect(try await gateway.store.createChannel(otherApp, limit: 10))
        let big = #"{"aps":{"event":"update","timestamp":1,"content-state":{"text":""# + String(repeating: "x", count: 5100) + #""}}}"#
        let cases: [(APNsResponse, Int, APNsReason)] = [
            (try await Self.broadcast(connection, gateway, channel: nil), 400, .missingChannelID),
            (try await Self.broadcast(connection, gateway, channel: "not base64!"), 400, .badChannelID),
            (try await Self.broadcast(connection, gateway, channel: BroadcastChannel.newID()), 400, .badChannelID),  // never issued
            (try await Self.broadcast(connection, gateway, channel: deleted), 400, .channelNotRegistered),
            (try await Self.broadcast(connection, gateway, channel: otherApp.id), 400, .channelNotRegistered),
            (try await Self.broadcast(connection, gateway, channel: live, pushType: nil), 400, .missingPushType),
            (try await Self.broadcast(connection, gateway, channel: live, pushType: "alert"), 400, .invalidPushType),
            (try await Self.broadcast(connection, gateway, channel: live, expiration: nil), 400, .badExpirationDate),
            (try await Self.broadcast(connection, gateway, channel: live, expiration: "soon"), 400, .badExpirationDate),
            (try await Self.broadcast(connection, gateway, channel: live, priority: nil), 400, .badPriority),
            (try await Self.broadcast(connection, gateway, channel: live, priority: "7"), 400, .badPriority),
            (try await Self.broadcast(connection, gateway, channel: live, extra: [("apns-request-id", "1234")]), 400, .badMessageID),
            (try await Self.broadcast(connection, gateway, channel: live, path: "/4/broadcasts/apps/"), 404, .badPath),
            (
                try await Self.broadcast(connection, gateway, channel: live, path: "/4/broadcasts/apps/\(TestGateway.topic).push-type.liveactivity"),
                400, .topicDisallowed
            ),
            (try await Self.broadcast(connection, gateway, channel: live, body: ""), 400, .payloadEmpty),
            (try await Self.broadcast(connection, gateway, channel: live, body: big), 413, .payloadTooLarge),
            (try await Self.broadcast(connection, gateway, channel: live, body: #"{"aps":{"event":"update","timestamp":1}}"#), 400, .badPayload),
            (
                try await Self.broadcast(
                    connection, gateway, channel: live,
                    body: #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":"x"}}"#),
                400, .badPayload
            ),
        ]
        for (index, (response, status, reason)) in cases.enumerated() {
            #expect(response.status == status && response.reason == reason, "case \(index): \(response.status) \(response.reason?.rawValue ?? "")")
            #expect(response.header("apns-request-id") != nil && response.header("content-type") == "application/json", "case \(index)")
        }
        // A 5,000-byte broadcast is within its 5,120 (a notification's limit is 4,096).
        let large = #"{"aps":{"event":"update","timestamp":1,"content-state":{"text":""# + String(repeating: "x", count: 4900) + #""}}}"#
        #expect(try await Self.broadcast(connection, gateway, channel: live, body: large).status == 200)

        // A key limited to another app's topics.
        let narrow = try await gateway.addKey(teamID: TestGateway.teamID, keyID: "NARROWKEY1", topics: ["com.example.other"])
        let other = try await gateway.connect()
        let mismatch = try await Self.broadcast(other, gateway, channel: live, jwt: try gateway.jwt(keyID: "NARROWKEY1", key: narrow))
        #expect(mismatch.status == 403 && mismatch.reason == .topicMismatch)
        let missing = try await gateway.connect().send(
            headers: [
                (":method", "POST"), (":scheme", "https"), (":path", "/4/broadcasts/apps/\(TestGateway.topic)"), (":authority", "localhost"),
                ("apns-channel-id", live), ("apns-expiration", "0"), ("apns-priority", "10"), ("apns-push-type", "liveactivity"),
            ],
            body: Data(Self.update.utf8))
        #expect(missing.status == 403 && missing.reason == .missingProviderToken)
        try await gateway.stop()
    }
}
