import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// The console's validators: a provider JWT gets the answer the provider API would give it; a device token is
/// looked up.
@Suite struct ConsoleValidatorsTests {
    private func validate(_ gateway: TestGateway, _ jwt: String, topic: String? = nil) async throws -> JSONValue {
        var body: [String: JSONValue] = ["jwt": .string(jwt)]
        if let topic { body["topic"] = .string(topic) }
        let reply = try await AdminClient(gateway: gateway).request(
            "POST", "/v1/validate/jwt", body: String(decoding: JSONValue.object(body).encoded(), as: UTF8.self))
        #expect(reply.status == 200)
        return reply.body
    }

    @Test func aGoodTokenIsDecodedAndPasses() async throws {
        let gateway = try await TestGateway.start()
        let result = try await validate(gateway, gateway.defaultJWT, topic: TestGateway.topic)
        #expect(result["status"] == .integer(200), "\(result)")
        #expect(result["header"]?["kid"]?.stringValue == TestGateway.keyID && result["header"]?["alg"]?.stringValue == "ES256")
        #expect(result["claims"]?["iss"]?.stringValue == TestGateway.teamID)
        #expect(result["signature"]?.stringValue == "valid" && result["key"]?["revoked"] == .bool(false))
        #expect(result["ageSeconds"] == .integer(0))
        try await gateway.stop()
    }

    @Test func eachBadTokenGetsTheProviderAPIsReason() async throws {
        let gateway = try await TestGateway.start()
        let now = gateway.clock.now()
        let cases: [(String, String, String)] = [
            ("expired", try gateway.jwt(issuedAt: now.addingTimeInterval(-3601)), "ExpiredProviderToken"),
            ("future", try gateway.jwt(issuedAt: now.addingTimeInterval(3600)), "InvalidProviderToken"),
            ("unknown key", try gateway.jwt(keyID: "NOSUCHKEY1"), "InvalidProviderToken"),
            ("forged", try gateway.jwt(key: P256.Signing.PrivateKey()), "InvalidProviderToken"),
            ("garbage", "not.a.jwt", "InvalidProviderToken"),
        ]
        for (name, jwt, reason) in cases {
            let result = try await validate(gateway, jwt)
            #expect(result["status"] == .integer(403), "\(name): \(result)")
            #expect(result["reason"]?.stringValue == reason, "\(name): \(result)")
        }
        let expired = try await validate(gateway, try gateway.jwt(issuedAt: now.addingTimeInterval(-3601)))
        #expect(expired["ageSeconds"] == .integer(3601) && expired["signature"]?.stringValue == "valid")
        let missing = try await AdminClient(gateway: gateway).request("POST", "/v1/validate/jwt", body: "{}")
        #expect(missing.status == 400)
        try await gateway.stop()
    }

    /// Found while writing Fuzz/FuzzProviderToken: an `iat` of 1e300 is a finite number the token parser accepts, and
    /// the token's age trapped converting to Int64, taking the gateway down with it.
    @Test(arguments: ["1e300", "-1e300"])
    func aTokenFromFarInTheFutureOrThePastGetsAnAnswer(_ issuedAt: String) async throws {
        let gateway = try await TestGateway.start()
        let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"\#(TestGateway.keyID)"}"#.utf8))
        let claims = Base64URL.encode(Data(#"{"iss":"\#(TestGateway.teamID)","iat":\#(issuedAt)}"#.utf8))
        let signature = try gateway.privateKey.signature(for: Data("\(header).\(claims)".utf8))
        let result = try await validate(gateway, "\(header).\(claims).\(Base64URL.encode(signature.rawRepresentation))")
        #expect(result["status"] == .integer(403), "\(result)")
        #expect(result["ageSeconds"] == .integer(issuedAt.hasPrefix("-") ? .max : -.max), "\(result)")
        try await gateway.stop()
    }

    /// A revoked key's token: its signature still holds, and the answer is Forbidden, as the provider API gives.
    @Test func aRevokedKeysTokenIsForbidden() async throws {
        let gateway = try await TestGateway.start()
        var key = try #require(try await gateway.store.key(teamID: TestGateway.teamID, keyID: TestGateway.keyID))
        key.revokedAt = gateway.clock.now()
        try await gateway.store.saveKey(key)
        let result = try await validate(gateway, gateway.defaultJWT)
        #expect(result["status"] == .integer(403) && result["reason"]?.stringValue == "Forbidden", "\(result)")
        #expect(result["signature"]?.stringValue == "valid" && result["key"]?["revoked"] == .bool(true))
        let forged = try await validate(gateway, try gateway.jwt(key: P256.Signing.PrivateKey()))
        #expect(forged["reason"]?.stringValue == "InvalidProviderToken" && forged["signature"] == nil, "\(forged)")
        try await gateway.stop()
    }

    @Test func aDeviceTokenIsLookedUp() async throws {
        let gateway = try await TestGateway.start()
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        let online = try await AdminClient(gateway: gateway).get("/v1/validate/token/\(token)")
        #expect(online.status == 200)
        #expect(online.body["topic"]?.stringValue == TestGateway.topic && online.body["online"] == .bool(true))
        #expect(online.body["environment"]?.stringValue == "development" && online.body["retired"] == nil)

        let virtual = try await gateway.issueToken()
        #expect(try await AdminClient(gateway: gateway).get("/v1/validate/token/\(virtual)").body["virtual"] == .bool(true))
        _ = try await gateway.store.retireDevice(try #require(DeviceToken(hex: virtual)), as: .unregistered, at: gateway.clock.now())
        let retired = try await AdminClient(gateway: gateway).get("/v1/validate/token/\(virtual)")
        #expect(retired.body["retired"]?["as"]?.stringValue == "unregistered" && retired.body["retired"]?["at"] != nil)
        let unknown = try await AdminClient(gateway: gateway).get("/v1/validate/token/\(String(repeating: "ab", count: 32))")
        #expect(unknown.status == 404 && unknown.body["reason"]?.stringValue == "BadDeviceToken")
        #expect(try await AdminClient(gateway: gateway).get("/v1/validate/token/xyz").status == 400)
        await device.leave()
        try await gateway.stop()
    }
}
