import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import Testing

/// The console's keys and tokens, over HTTP against a real gateway: keys created (their `.p8` handed over once and
/// signing pushes the provider API accepts), imported and revoked; virtual tokens issued and tokens unregistered.
/// The gateways here cache keys and devices for an hour, so a change seen at once was told to the provider API's cache.
@Suite struct ConsoleKeysTests {
    static func start() async throws -> TestGateway {
        try await TestGateway.start { $0.directoryTimeToLive = .seconds(3600) }
    }

    private static func json(_ fields: [String: JSONValue]) -> String {
        String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self)
    }

    private static func newKey(teamID: String = "CONSOLE001", keyID: String, topics: [String] = []) -> String {
        json(["teamID": .string(teamID), "keyID": .string(keyID), "topics": .array(topics.map(JSONValue.string))])
    }

    /// One push on a new connection.
    static func push(_ gateway: TestGateway, token: String, jwt: String, topic: String = TestGateway.topic) async throws -> APNsResponse {
        let connection = try await gateway.connect()
        let response = try await connection.send(Push(token: token, topic: topic, jwt: jwt))
        await connection.close()
        return response
    }

    @Test func aCreatedKeysP8IsAnsweredOnceAndSignsPushesTheProviderAPIAccepts() async throws {
        let gateway = try await Self.start()
        let admin = AdminClient(gateway: gateway)
        let created = try await admin.request("POST", "/v1/keys", body: Self.newKey(keyID: "CKEY000001", topics: ["com.example.app"]))
        #expect(created.status == 201, "\(created.body)")
        #expect(created.headers["Cache-Control"] as? String == "no-store")
        #expect(created.body["fileName"]?.stringValue == "AuthKey_CKEY000001.p8")
        #expect(created.body["message"]?.stringValue?.contains("cannot show the private key again") == true)
        #expect(created.body["key"]?["topics"] == .array([.string("com.example.app")]))
        #expect(created.body["key"]?["environment"]?.stringValue == "development" && created.body["warnings"] == nil)
        let p8 = try #require(created.body["p8"]?.stringValue)
        #expect(p8.hasPrefix("-----BEGIN PRIVATE KEY-----\n") && p8.hasSuffix("-----END PRIVATE KEY-----\n"))
        let privateKey = try P256.Signing.PrivateKey(pemRepresentation: p8)

        // The gateway keeps the public half only, and never answers with a private key again.
        let stored = try #require(try await gateway.store.key(teamID: "CONSOLE001", keyID: "CKEY000001"))
        #expect(stored.publicKeyPEM == privateKey.publicKey.pemRepresentation)
        let listed = try await admin.get("/v1/keys")
        let entry = try #require(listed.body["keys"]?.first { $0["keyID"]?.stringValue == "CKEY000001" })
        #expect(entry["teamID"]?.stringValue == "CONSOLE001" && entry["revokedAt"] == nil && entry["createdAt"] != nil)
        let everything = String(decoding: listed.body.encoded(), as: UTF8.self)
        #expect(!everything.contains("PRIVATE") && !everything.contains("p8"))

        let token = try await gateway.issueToken()
        let jwt = try gateway.jwt(teamID: "CONSOLE001", keyID: "CKEY000001", key: privateKey)
        #expect(try await Self.push(gateway, token: token, jwt: jwt).status == 200)
        // Its topics bound it.
        let elsewhere = try await Self.push(
            gateway, token: try await gateway.issueToken(topic: "com.example.other"), jwt: jwt, topic: "com.example.other")
        #expect(elsewhere.status == 400 && elsewhere.reason == .topicDisallowed)
        try await gateway.stop()
    }

    /// Apple never reuses a key id; replacing a key would silently change what its tokens are checked with.
    @Test func aTakenKeyIDIsAConflictAndTheKeyStays() async throws {
        let gateway = try await Self.start()
        let admin = AdminClient(gateway: gateway)
        let before = try #require(try await gateway.store.key(teamID: TestGateway.teamID, keyID: TestGateway.keyID))
        for path in ["/v1/keys", "/v1/keys/import"] {
            var fields: [String: JSONValue] = ["teamID": .string(TestGateway.teamID), "keyID": .string(TestGateway.keyID)]
            fields["pem"] = .string(P256.Signing.PrivateKey().pemRepresentation)
            let again = try await admin.request("POST", path, body: Self.json(fields))
            #expect(again.status == 409 && again.body["reason"]?.stringValue == "KeyExists", "\(path): \(again.body)")
            #expect(again.body["message"]?.stringValue?.contains("use another key id") == true)
            #expect(again.body["p8"] == nil)
        }
        #expect(try await gateway.store.key(teamID: TestGateway.teamID, keyID: TestGateway.keyID) == before)
        #expect(try await Self.push(gateway, token: try await gateway.issueToken(), jwt: gateway.defaultJWT).status == 200)
        try await gateway.stop()
    }

    @Test(arguments: [
        (#"{"teamID":"TEAM","keyID":"KEY1234567"}"#, "BadTeamID", "teamID must be 10 letters or digits"),
        (#"{"keyID":"KEY1234567"}"#, "BadTeamID", "teamID must be 10 letters or digits"),
        (#"{"teamID":"TEAM123456","keyID":"KEY-123456"}"#, "BadKeyID", "keyID must be 10 letters or digits"),
        (#"{"teamID":"TEAM123456","keyID":"KEY1234567","topics":["com example"]}"#, "BadTopic", "is not a bundle id"),
        (#"{"teamID":"TEAM123456","keyID":"KEY1234567","topics":[""]}"#, "BadTopic", "is not a bundle id"),
        (#"{"teamID":"TEAM123456","keyID":"KEY1234567","topics":"com.example.app"}"#, "BadTopic", "topics is a list of bundle ids"),
        (#"{"teamID":"TEAM123456","keyID":"KEY1234567","topics":[7]}"#, "BadTopic", "topics is a list of bundle ids"),
        (#"{"teamID":"TEAM123456","keyID":"KEY1234567","environment":"staging"}"#, "BadEnvironment", "development or production"),
        ("teamID=TEAM123456", "BadRequest", "send a JSON object"),
        (#"["TEAM123456"]"#, "BadRequest", "send a JSON object"),
    ])
    func aKeyWithBadFieldsIsRefusedSayingWhich(body: String, reason: String, message: String) async throws {
        let gateway = try await TestGateway.start()
        let admin = AdminClient(gateway: gateway)
        let keysBefore = try await gateway.store.keys()
        for path in ["/v1/keys", "/v1/keys/import"] {
            let reply = try await admin.request("POST", path, body: body)
            #expect(reply.status == 400 && reply.body["reason"]?.stringValue == reason, "\(path) \(body): \(reply.body)")
            #expect(reply.body["message"]?.stringValue?.contains(message) == true, "\(path) \(body): \(reply.body)")
        }
        #expect(try await gateway.store.keys() == keysBefore)
        try await gateway.stop()
    }

    @Test func anImportedKeyStoresOnlyItsPublicHalfAndSigns() async throws {
        let gateway = try await Self.start()
        let admin = AdminClient(gateway: gateway)
        let privateKey = P256.Signing.PrivateKey()
        let fromPrivate = try await admin.request(
            "POST", "/v1/keys/import",
            body: Self.json([
                "teamID": .string("IMPORT0001"), "keyID": .string("IKEY000001"), "environment": .string("development"),
                "pem": .string("\n  " + privateKey.pemRepresentation + "\n"),
            ]))
        #expect(fromPrivate.status == 201, "\(fromPrivate.body)")
        #expect(fromPrivate.body["from"]?.stringValue == "privateKey")
        #expect(fromPrivate.body["message"]?.stringValue?.contains("the private key was not kept") == true)
        #expect(try await gateway.store.key(teamID: "IMPORT0001", keyID: "IKEY000001")?.publicKeyPEM == privateKey.publicKey.pemRepresentation)
        let jwt = try gateway.jwt(teamID: "IMPORT0001", keyID: "IKEY000001", key: privateKey)
        #expect(try await Self.push(gateway, token: try await gateway.issueToken(), jwt: jwt).status == 200)

        // Only the public key, as the console's page sends after deriving it in the browser.
        let other = P256.Signing.PrivateKey()
        let fromPublic = try await admin.request(
            "POST", "/v1/keys/import",
            body: Self.json([
                "teamID": .string("IMPORT0001"), "keyID": .string("IKEY000002"), "topics": .array([.string("com.example.app")]),
                "pem": .string(other.publicKey.pemRepresentation),
            ]))
        #expect(fromPublic.status == 201 && fromPublic.body["from"]?.stringValue == "publicKey", "\(fromPublic.body)")
        let second = try gateway.jwt(teamID: "IMPORT0001", keyID: "IKEY000002", key: other)
        #expect(try await Self.push(gateway, token: try await gateway.issueToken(), jwt: second).status == 200)
        try await gateway.stop()
    }

    @Test(arguments: [
        ("not a key", "pem is not a P-256 key"),
        (P384.Signing.PrivateKey().pemRepresentation, "pem is not a P-256 key"),
        (P256.KeyAgreement.PrivateKey().derRepresentation.base64EncodedString(), "pem is not a P-256 key"),
        ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "pem is not a P-256 key"),
        ("", #"send the key in "pem""#),
    ])
    func anImportThatIsNotAP256KeyIsRefused(pem: String, message: String) async throws {
        let gateway = try await TestGateway.start()
        let reply = try await AdminClient(gateway: gateway).request(
            "POST", "/v1/keys/import",
            body: Self.json(["teamID": .string("IMPORT0001"), "keyID": .string("IKEY000001"), "pem": .string(pem)]))
        #expect(reply.status == 400 && reply.body["reason"]?.stringValue == "BadKey", "\(reply.body)")
        #expect(reply.body["message"]?.stringValue?.contains(message) == true, "\(reply.body)")
        #expect(try await gateway.store.key(teamID: "IMPORT0001", keyID: "IKEY000001") == nil)
        try await gateway.stop()
    }

    /// The provider API refuses a revoked key's tokens at once, though it caches keys for an hour here.
    @Test func aRevokedKeysTokensAreRefusedAtOnce() async throws {
        let gateway = try await Self.start()
        let admin = AdminClient(gateway: gateway)
        let token = try await gateway.issueToken()
        let connection = try await gateway.connect()
        #expect(try await connection.send(Push(token: token, jwt: gateway.defaultJWT)).status == 200)  // the key is cached now

        let revoked = try await admin.request("POST", "/v1/keys/\(TestGateway.teamID)/\(TestGateway.keyID)/revoke")
        #expect(revoked.status == 200, "\(revoked.body)")
        let revokedAt = try #require(revoked.body["key"]?["revokedAt"]?.stringValue)
        #expect(try await gateway.store.key(teamID: TestGateway.teamID, keyID: TestGateway.keyID)?.revokedAt != nil)

        let refused = try await connection.send(Push(token: token, jwt: gateway.defaultJWT))
        #expect(refused.status == 403 && refused.reason == .forbidden, "\(refused.status) \(String(describing: refused.reason))")
        await connection.close()
        let fresh = try await Self.push(gateway, token: token, jwt: gateway.defaultJWT)
        #expect(fresh.status == 403 && fresh.reason == .forbidden)

        // Again: still revoked, since the first time.
        let again = try await admin.request("POST", "/v1/keys/\(TestGateway.teamID)/\(TestGateway.keyID)/revoke")
        #expect(again.status == 200 && again.body["key"]?["revokedAt"]?.stringValue == revokedAt)
        let listed = try await admin.get("/v1/keys")
        #expect(listed.body["keys"]?.first { $0["keyID"]?.stringValue == TestGateway.keyID }?["revokedAt"]?.stringValue == revokedAt)

        let unknown = try await admin.request("POST", "/v1/keys/\(TestGateway.teamID)/NOSUCHKEY1/revoke")
        #expect(unknown.status == 404 && unknown.body["reason"]?.stringValue == "NotFound")
        #expect(unknown.body["message"]?.stringValue?.contains("no key NOSUCHKEY1 of team TEAM123456") == true)
        try await gateway.stop()
    }

    @Test func aVirtualTokenIsIssuedAndTakesPushes() async throws {
        let gateway = try await Self.start()
        let admin = AdminClient(gateway: gateway)
        let issued = try await admin.request("POST", "/v1/tokens", body: #"{"topic":"com.example.app"}"#)
        #expect(issued.status == 201, "\(issued.body)")
        let hex = try #require(issued.body["deviceToken"]?.stringValue)
        #expect(DeviceToken(hex: hex) != nil && hex.count == 64)
        #expect(issued.body["topic"]?.stringValue == "com.example.app" && issued.body["environment"]?.stringValue == "development")
        #expect(issued.body["warnings"] == nil && issued.body["retired"] == nil && issued.body["deviceID"] == nil)
        #expect(try await gateway.store.device(try #require(DeviceToken(hex: hex)))?.topic == "com.example.app")
        #expect(try await Self.push(gateway, token: hex, jwt: gateway.defaultJWT).status == 200)

        // A topic with a push type's suffix: issued as asked, with a note on what was likely meant.
        let voip = try await admin.request("POST", "/v1/tokens", body: #"{"topic":"com.example.app.voip"}"#)
        #expect(voip.status == 201)
        #expect(
            voip.body["warnings"]?.first?.stringValue?.hasPrefix(
                "com.example.app.voip ends in voip's topic suffix; if the app is com.example.app, issue the token for com.example.app") == true,
            "\(voip.body)")
        // Another environment than the gateway's: issued, with a note that this gateway refuses it.
        let production = try await admin.request("POST", "/v1/tokens", body: #"{"topic":"com.example.app","environment":"production"}"#)
        #expect(production.status == 201 && production.body["environment"]?.stringValue == "production")
        #expect(production.body["warnings"]?.first?.stringValue?.contains("this gateway serves development") == true)
        try await gateway.stop()
    }

    @Test(arguments: [
        (#"{}"#, "BadTopic", #""" is not a bundle id"#),
        (#"{"topic":"com example"}"#, "BadTopic", "is not a bundle id; use one like com.example.app"),
        (#"{"topic":".com.example"}"#, "BadTopic", "is not a bundle id"),
        (#"{"topic":"com.example.app","environment":"sandbox"}"#, "BadEnvironment", "environment is development or production"),
        ("topic=com.example.app", "BadRequest", "send a JSON object"),
    ])
    func aTokenForABadTopicIsRefused(body: String, reason: String, message: String) async throws {
        let gateway = try await TestGateway.start()
        let reply = try await AdminClient(gateway: gateway).request("POST", "/v1/tokens", body: body)
        #expect(reply.status == 400 && reply.body["reason"]?.stringValue == reason, "\(reply.body)")
        #expect(reply.body["message"]?.stringValue?.contains(message) == true, "\(reply.body)")
        try await gateway.stop()
    }

    /// An unregistered token gets 410 from the provider API at once, though it caches devices for an hour here.
    @Test func anUnregisteredTokenGets410AtOnce() async throws {
        let gateway = try await Self.start()
        let admin = AdminClient(gateway: gateway)
        let unregistered = try await gateway.issueToken()
        let expired = try await gateway.issueToken()
        let connection = try await gateway.connect()
        for token in [unregistered, expired] {
            #expect(try await connection.send(Push(token: token, jwt: gateway.defaultJWT)).status == 200)  // cached now
        }

        let first = try await admin.request("POST", "/v1/tokens/\(unregistered)/unregister")
        #expect(first.status == 200, "\(first.body)")
        #expect(first.body["retired"]?["as"]?.stringValue == "unregistered" && first.body["topic"]?.stringValue == TestGateway.topic)
        let second = try await admin.request("POST", "/v1/tokens/\(expired.uppercased())/unregister", body: #"{"reason":"expired"}"#)
        #expect(second.status == 200 && second.body["retired"]?["as"]?.stringValue == "expired", "\(second.body)")

        let gone = try await connection.send(Push(token: unregistered, jwt: gateway.defaultJWT))
        #expect(gone.status == 410 && gone.reason == .unregistered, "\(gone.status)")
        let replaced = try await connection.send(Push(token: expired, jwt: gateway.defaultJWT))
        #expect(replaced.status == 410 && replaced.reason == .expiredToken, "\(replaced.status)")
        await connection.close()

        // Once retired, it stays as it was.
        let again = try await admin.request("POST", "/v1/tokens/\(unregistered)/unregister", body: #"{"reason":"expired"}"#)
        #expect(again.status == 200 && again.body["retired"] == first.body["retired"])
        try await gateway.stop()
    }

    @Test(arguments: [
        (String(repeating: "ab", count: 32), "", 404, "NotFound", "no device token abababab… on this gateway"),
        ("xyz", "", 400, "BadDeviceToken", "a device token is 64 hexadecimal digits"),
        (String(repeating: "a", count: 63), "", 400, "BadDeviceToken", "a device token is 64 hexadecimal digits"),
        ("ISSUED", #"{"reason":"gone"}"#, 400, "BadReason", "reason is unregistered"),
        ("ISSUED", "not json", 400, "BadRequest", "send a JSON object"),
    ])
    func unregisteringABadOrUnknownTokenIsRefused(token: String, body: String, status: Int, reason: String, message: String) async throws {
        let gateway = try await TestGateway.start()
        let hex = token == "ISSUED" ? try await gateway.issueToken() : token
        let reply = try await AdminClient(gateway: gateway).request("POST", "/v1/tokens/\(hex)/unregister", body: body)
        #expect(reply.status == status && reply.body["reason"]?.stringValue == reason, "\(reply.body)")
        #expect(reply.body["message"]?.stringValue?.contains(message) == true, "\(reply.body)")
        if let issued = DeviceToken(hex: hex) {
            #expect(try await gateway.store.device(issued)?.retiredAt == nil)
        }
        try await gateway.stop()
    }

    /// A signed-in person's changes here need the CSRF token, like every console change.
    @Test(arguments: [
        "/v1/keys", "/v1/keys/import", "/v1/keys/TEAM123456/KEY1234567/revoke", "/v1/tokens",
        "/v1/tokens/\(String(repeating: "ab", count: 32))/unregister",
    ])
    func aSignedInChangeNeedsTheCSRFToken(path: String) async throws {
        let gateway = try await TestGateway.start()
        let http = ConsoleHTTP(port: try await gateway.gateway.consolePort())
        let signedIn = try await http.send(
            "POST", "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "token=\(gateway.gateway.adminToken)")
        let cookie = try #require(signedIn.header("set-cookie")?.split(separator: ";").first.map(String.init))
        let reply = try await http.send("POST", path, headers: ["Cookie": cookie, "Content-Type": "application/json"], body: "{}")
        #expect(reply.status == 403 && reply.body.contains("MissingCSRFToken"), "\(reply.body)")
        #expect(try await gateway.store.key(teamID: TestGateway.teamID, keyID: TestGateway.keyID)?.revokedAt == nil)
        try await gateway.stop()
    }
}
