import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// Every reason APNs can give that can arise here, provoked through real TLS + HTTP/2.
@Suite struct ProviderReasonTests {
    static let scenarios: [Scenario] = [
        .single(.badCollapseID) { try await $0.push { $0.collapseID = String(repeating: "c", count: 65) } },
        .single(.badDeviceToken) { gateway in try await gateway.push { $0.token = DeviceToken.random().hex } },
        .single(.badExpirationDate) {
            try await $0.push {
                $0.expiration = nil
                $0.extraHeaders = [("apns-expiration", "tomorrow")]
            }
        },
        .single(.badMessageID) { try await $0.push { $0.apnsID = "1234" } },
        .single(.badPriority) { try await $0.push { $0.priority = 7 } },
        .single(.badTopic) { try await $0.push { $0.topic = "com example app" } },
        .single(.deviceTokenNotForTopic) { gateway in
            let other = try await gateway.issueToken(topic: "com.example.other")
            return try await gateway.push { $0.token = other }
        },
        .single(.duplicateHeaders) { try await $0.push { $0.extraHeaders = [("apns-topic", "com.example.app")] } },
        .single(.invalidPushType) { try await $0.push { $0.pushType = PushType(rawValue: "banner") } },
        .single(.missingDeviceToken) { try await $0.push { $0.path = "/3/device/" } },
        .single(.missingTopic) { try await $0.push { $0.topic = nil } },
        .single(.payloadEmpty) { try await $0.push { $0.body = Data() } },
        .single(.topicDisallowed) { gateway in
            let key = try await gateway.addKey(teamID: TestGateway.teamID, keyID: "TOPICKEY01", topics: ["com.example.other"])
            let jwt = try gateway.jwt(keyID: "TOPICKEY01", key: key)
            return try await gateway.push { $0.jwt = jwt }
        },
        .single(.badPayload) { try await $0.push { $0.body = Data(#"{"aps":{"badge":"x"}}"#.utf8) } },
        Scenario(reason: .badCertificate) { gateway in
            let connection = try await gateway.connect(clientCertificate: try gateway.clientCertificate(topics: []))
            return try await connection.send(try await gateway.push { $0.jwt = nil })
        },
        Scenario(reason: .badCertificateEnvironment) { gateway in
            let certificate = try gateway.clientCertificate(topics: [TestGateway.topic], environment: .production)
            let connection = try await gateway.connect(clientCertificate: certificate)
            return try await connection.send(try await gateway.push { $0.jwt = nil })
        },
        .single(.expiredProviderToken) { gateway in
            let jwt = try gateway.jwt(issuedAt: gateway.clock.now().addingTimeInterval(-3601))
            return try await gateway.push { $0.jwt = jwt }
        },
        .single(.forbidden) { gateway in
            var key = try #require(try await gateway.store.key(teamID: TestGateway.teamID, keyID: TestGateway.keyID))
            key.revokedAt = gateway.clock.now()
            try await gateway.store.saveKey(key)
            return try await gateway.push()
        },
        .single(.invalidProviderToken) { gateway in
            let forged = try gateway.jwt(key: P256.Signing.PrivateKey())
            return try await gateway.push { $0.jwt = forged }
        },
        .single(.missingProviderToken) { try await $0.push { $0.jwt = nil } },
        Scenario(reason: .unrelatedKeyIDInToken) { gateway in
            let connection = try await gateway.connect()
            #expect(try await connection.send(try await gateway.push()).status == 200)
            let otherKey = try await gateway.addKey(teamID: "OTHERTEAM1", keyID: "OTHERKEY01")
            let jwt = try gateway.jwt(teamID: "OTHERTEAM1", keyID: "OTHERKEY01", key: otherKey)
            return try await connection.send(try await gateway.push { $0.jwt = jwt })
        },
        .single(.badEnvironmentKeyIDInToken) { gateway in
            let key = try await gateway.addKey(teamID: TestGateway.teamID, keyID: "PRODKEY001", environment: .production)
            let jwt = try gateway.jwt(keyID: "PRODKEY001", key: key)
            return try await gateway.push { $0.jwt = jwt }
        },
        .single(.badPath) { try await $0.push { $0.path = "/3/devices/abc" } },
        .single(.methodNotAllowed) { try await $0.push { $0.method = "GET" } },
        .single(.expiredToken) { gateway in
            let push = try await gateway.push()
            _ = try await gateway.store.retireDevice(DeviceToken(hex: push.token)!, as: .expired, at: gateway.clock.now())
            return push
        },
        .single(.unregistered) { gateway in
            let push = try await gateway.push()
            _ = try await gateway.store.retireDevice(DeviceToken(hex: push.token)!, as: .unregistered, at: gateway.clock.now())
            return push
        },
        .single(.payloadTooLarge) { gateway in
            try await gateway.push { $0.body = Data((#"{"aps":{"alert":""# + String(repeating: "a", count: 4077) + #""}}"#).utf8) }
        },
        Scenario(reason: .tooManyProviderTokenUpdates) { gateway in
            let connection = try await gateway.connect()
            #expect(try await connection.send(try await gateway.push()).status == 200)
            gateway.clock.advance(by: 60)
            let renewed = try gateway.jwt(issuedAt: gateway.clock.now())
            return try await connection.send(try await gateway.push { $0.jwt = renewed })
        },
        Scenario(
            reason: .tooManyRequests,
            configure: {
                $0.deviceTokenRatePerSecond = 0.001
                $0.deviceTokenBurst = 2
            }
        ) { gateway in
            let connection = try await gateway.connect()
            let push = try await gateway.push()
            for _ in 0..<2 { #expect(try await connection.send(push).status == 200) }
            return try await connection.send(push)
        },
        .single(.internalServerError) { gateway in
            (gateway.store as? FaultInjectingStore)?.setFailWrites(.corrupt)
            return try await gateway.push()
        },
        .single(.serviceUnavailable, configure: { $0.writeQueueLimit = 0 }) { try await $0.push() },
        // The store cannot be reached (a cluster's PostgreSQL is down): nothing was stored, and a retry may succeed.
        .single(.serviceUnavailable) { gateway in
            (gateway.store as? FaultInjectingStore)?.setFailWrites(.unavailable)
            return try await gateway.push()
        },
    ]

    @Test(arguments: scenarios)
    func answersWithAPNsReason(_ scenario: Scenario) async throws {
        let gateway = try await TestGateway.start(configure: scenario.configure)
        let response = try await scenario.run(gateway)
        #expect(response.reason == scenario.reason)
        #expect(response.status == scenario.reason.status)
        #expect(response.header("content-type") == "application/json")
        #expect(response.apnsID.flatMap(APNsID.parse) != nil)
        #expect(response.uniqueID == nil)
        try await gateway.stop()
    }

    @Test func everyReasonThatCanAriseHereHasAScenario() {
        let provoked = Set(Self.scenarios.map(\.reason))
        // IdleTimeout and Shutdown arrive as GOAWAY reasons; their own tests provoke them. The channel management API's
        // own reasons are provoked by ChannelManagementTests; the Web Push port's by WebPushTests (HeraldWire) and
        // Tests/Clients/webpush_clients_test.py (each from a real sender).
        let elsewhere: Set<APNsReason> = [
            .idleTimeout, .shutdown, .missingChannelID, .badChannelID, .channelNotRegistered, .cannotCreateChannelConfig, .badRequestParams,
            .badRequestPayload, .missingPushType, .missingChannelQueueSize, .topicMismatch,
            .badTTL, .badUrgency, .badWebPushRequest, .badWebPushTopic, .vapidPKHashMismatch, .badAuthorizationHeader, .badJWTToken,
            .badVAPIDPublicKey,
        ]
        #expect(provoked.union(elsewhere) == Set(APNsReason.statusTable.keys))
    }

    @Test func goneTokensCarryTheirTimestamp() async throws {
        let gateway = try await TestGateway.start()
        let push = try await gateway.push()
        let retiredAt = gateway.clock.now()
        _ = try await gateway.store.retireDevice(DeviceToken(hex: push.token)!, as: .unregistered, at: retiredAt)
        let connection = try await gateway.connect()
        let response = try await connection.send(push)
        #expect(response.status == 410)
        #expect(response.timestamp == Int64(retiredAt.timeIntervalSince1970 * 1000))
        try await gateway.stop()
    }

    @Test func backgroundPushesRejectPriorityTenAndAlerts() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let silent = Data(#"{"aps":{"content-available":1}}"#.utf8)
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.pushType = .background
                    $0.body = silent
                }
            ).status == 200)
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.pushType = .background
                    $0.priority = 10
                    $0.body = silent
                }
            ).reason == .badPriority)
        #expect(try await connection.send(try await gateway.push { $0.pushType = .background }).reason == .invalidPushType)
        try await gateway.stop()
    }

    @Test func voipAllowsLargerPayloadsAndNeedsItsSuffix() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let big = Data((#"{"aps":{"alert":""# + String(repeating: "a", count: 5000) + #""}}"#).utf8)
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.pushType = .voip
                    $0.topic = "com.example.app.voip"
                    $0.body = big
                }
            ).status == 200)
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.pushType = .voip
                    $0.body = Data("{}".utf8)
                }
            ).reason == .deviceTokenNotForTopic)
        let tooBig = Data((#"{"aps":{"alert":""# + String(repeating: "a", count: 5101) + #""}}"#).utf8)
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.pushType = .voip
                    $0.topic = "com.example.app.voip"
                    $0.body = tooBig
                }
            ).reason == .payloadTooLarge)
        try await gateway.stop()
    }

    /// A body far past every limit is answered as soon as it is too large, not after it was all read.
    @Test func hugeBodiesAreAnsweredEarly() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let response = try await connection.send(try await gateway.push { $0.body = Data(repeating: 0x20, count: 3 << 20) })
        #expect(response.reason == .payloadTooLarge)
        #expect(try await connection.send(try await gateway.push()).status == 200)
        try await gateway.stop()
    }
}
