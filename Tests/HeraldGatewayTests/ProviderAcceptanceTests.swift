import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import Testing

@Suite struct ProviderAcceptanceTests {
    @Test func acceptedNotificationIsStoredBeforeTheAnswer() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let apnsID = "6A0B0C1D-2E3F-4A5B-8C6D-7E8F9A0B1C2D"
        let push = try await gateway.push {
            $0.apnsID = apnsID
            $0.collapseID = "score"
            $0.expiration = 0
            $0.priority = 5
        }
        let response = try await connection.send(push)
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.apnsID == apnsID.lowercased())
        let uniqueID = try #require(response.uniqueID.flatMap(APNsID.parse))
        let stored = try #require(try await gateway.store.notification(id: uniqueID))
        #expect(APNsID.format(stored.apnsID) == apnsID.lowercased())
        #expect(stored.deviceToken.hex == push.token)
        #expect(stored.bundleID == TestGateway.topic)
        #expect(stored.collapseID == "score")
        #expect(stored.expiration == 0)
        #expect(stored.priority == .powerConsiderate)
        #expect(stored.pushType == .alert)
        #expect(stored.payload == push.body)
        try await gateway.stop()
    }

    @Test func refusedRequestsEchoTheClientsID() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let id = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.apnsID = id
                    $0.priority = 3
                }
            ).apnsID == id)
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.apnsID = id
                    $0.method = "GET"
                }
            ).apnsID == id)
        try await gateway.stop()
    }

    @Test func revocationIsToldOnlyToHoldersOfTheKey() async throws {
        let gateway = try await TestGateway.start()
        var key = try #require(try await gateway.store.key(teamID: TestGateway.teamID, keyID: TestGateway.keyID))
        key.revokedAt = gateway.clock.now()
        try await gateway.store.saveKey(key)
        let forged = try gateway.jwt(key: P256Key().value)
        #expect(try await gateway.connect().send(try await gateway.push { $0.jwt = forged }).reason == .invalidProviderToken)
        #expect(try await gateway.connect().send(try await gateway.push()).reason == .forbidden)
        try await gateway.stop()
    }

    /// A connection remembers the token it verified; a key replaced or revoked under it still counts at once.
    @Test func aConnectionsVerifiedTokenFollowsItsKey() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let push = try await gateway.push()
        #expect(try await connection.send(push).status == 200)

        try await gateway.addKey(teamID: TestGateway.teamID, keyID: TestGateway.keyID)
        #expect(try await connection.send(push).reason == .invalidProviderToken)

        try await gateway.addKey(teamID: TestGateway.teamID, keyID: TestGateway.keyID, key: gateway.privateKey)
        #expect(try await connection.send(push).status == 200)

        var key = try #require(try await gateway.store.key(teamID: TestGateway.teamID, keyID: TestGateway.keyID))
        key.revokedAt = gateway.clock.now()
        try await gateway.store.saveKey(key)
        #expect(try await connection.send(push).reason == .forbidden)
        try await gateway.stop()
    }

    @Test func generatesCanonicalLowercaseIDs() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let response = try await connection.send(try await gateway.push())
        let id = try #require(response.apnsID)
        #expect(APNsID.parse(id) != nil)
        #expect(id == id.lowercased())
        try await gateway.stop()
    }

    @Test func productionHasNoUniqueID() async throws {
        let gateway = try await TestGateway.start { $0.environment = .production }
        let key = try await gateway.addKey(teamID: TestGateway.teamID, keyID: "PRODKEY001", environment: .production)
        let token = try await gateway.issueToken(environment: .production)
        let connection = try await gateway.connect()
        let jwt = try gateway.jwt(keyID: "PRODKEY001", key: key)
        let response = try await connection.send(Push(token: token, jwt: jwt))
        #expect(response.status == 200)
        #expect(response.uniqueID == nil)
        // A development token is not valid in production.
        #expect(try await connection.send(Push(token: try await gateway.issueToken(), jwt: jwt)).reason == .badDeviceToken)
        try await gateway.stop()
    }

    @Test func sqliteStoreBehindTheGateway() async throws {
        let path = TemporaryPath.make("herald-gateway", suffix: ".sqlite")
        let gateway = try await TestGateway.start(store: try SQLiteStore(path: path))
        let connection = try await gateway.connect()
        var ids: [UUID] = []
        try await withThrowingTaskGroup(of: APNsResponse.self) { group in
            // The first success raises the stream limit; then many requests share one commit.
            ids.append(try #require(try await connection.send(try await gateway.push()).uniqueID.flatMap(APNsID.parse)))
            for _ in 0..<200 {
                let push = try await gateway.push()
                group.addTask { try await connection.send(push) }
            }
            for try await response in group {
                #expect(response.status == 200)
                ids.append(try #require(response.uniqueID.flatMap(APNsID.parse)))
            }
        }
        try await gateway.stop()
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.notificationCount() == 201)
        for id in ids.prefix(20) { #expect(try await reopened.notification(id: id) != nil) }
    }

    @Test func keysAndTokensAddedWhileRunningAreSeen() async throws {
        let gateway = try await TestGateway.start { $0.directoryTimeToLive = .milliseconds(100) }
        let connection = try await gateway.connect()
        let key = P256Key()
        let jwt = try gateway.jwt(teamID: "LATETEAM01", keyID: "LATEKEY001", key: key.value)
        let push = try await gateway.push { $0.jwt = jwt }
        #expect(try await connection.send(push).reason == .invalidProviderToken)
        try await gateway.addKey(teamID: "LATETEAM01", keyID: "LATEKEY001", key: key.value)
        try await Task.sleep(for: .milliseconds(150))
        let fresh = try await gateway.connect()
        #expect(try await fresh.send(push).status == 200)
        try await gateway.stop()
    }

    @Test func plaintextServesPriorKnowledgeH2C() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let connection = try await APNsConnection.connect(to: gateway.url)
        #expect(try await connection.send(try await gateway.push()).status == 200)
        try await gateway.stop()
    }
}

/// A fresh P-256 key, wrapped so tests can name it without importing Crypto everywhere.
struct P256Key {
    let value = P256KeyFactory.make()
}
