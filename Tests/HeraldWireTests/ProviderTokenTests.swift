import Crypto
import Foundation
import HeraldWire
import Testing

@Suite struct ProviderTokenTests {
    let key = P256.Signing.PrivateKey()

    @Test func signsAndVerifies() throws {
        let jwt = try ProviderToken.sign(teamID: "TEAM123456", keyID: "KEY1234567", issuedAt: Date(timeIntervalSince1970: 1_800_000_000), key: key)
        let token = try ProviderToken.parse(jwt)
        #expect(token.teamID == "TEAM123456")
        #expect(token.keyID == "KEY1234567")
        #expect(token.issuedAt == 1_800_000_000)
        try token.verify(with: key.publicKey)
        #expect(throws: Rejection(.invalidProviderToken, "the provider token's signature does not verify")) {
            try token.verify(with: P256.Signing.PrivateKey().publicKey)
        }
    }

    /// Some clients (kalyke) send `iat` as a string of digits.
    /// An `iat` as far as a double goes: the age is held to ±Int64.max rather than trapping (found while fuzzing).
    @Test func theAgeOfATokenFromFarAwayIsHeldToInt64() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for (issuedAt, age) in [("1e300", -Int64.max), ("-1e300", .max), ("1799999990.5", 9), ("1800000100", -100)] {
            let claims = Base64URL.encode(Data(#"{"iss":"TEAM123456","iat":\#(issuedAt)}"#.utf8))
            let token = try ProviderToken.parse(Base64URL.encode(Data(#"{"alg":"ES256","kid":"KEY1234567"}"#.utf8)) + ".\(claims).AA")
            #expect(token.ageInSeconds(at: now) == age, "iat \(issuedAt)")
        }
    }

    @Test func acceptsIssuedAtAsNumericString() throws {
        let jwt = try handMade(claims: #"{"iss":"TEAM123456","iat":"1800000000"}"#)
        let token = try ProviderToken.parse(jwt)
        #expect(token.issuedAt == 1_800_000_000)
        try token.verify(with: key.publicKey)
    }

    /// RFC 7519's NumericDate may have a fraction: Python clients sign `iat` as `time.time()`, and Apple accepts it.
    /// Strings must still be digits, and the age is judged by the number as sent.
    @Test func acceptsIssuedAtWithAFractionAndJudgesItsAgeByIt() throws {
        let fractional = try ProviderToken.parse(try handMade(claims: #"{"iss":"TEAM123456","iat":1795541234.52}"#))
        #expect(fractional.issuedAt == 1_795_541_234.52)
        try fractional.verify(with: key.publicKey)
        let issued = Date(timeIntervalSince1970: 1_795_541_234.52)
        #expect(!fractional.isExpired(at: issued.addingTimeInterval(3600)))
        #expect(fractional.isExpired(at: issued.addingTimeInterval(3600.01)))
        #expect(!fractional.isIssuedInTheFuture(at: issued.addingTimeInterval(-60)))
        #expect(fractional.isIssuedInTheFuture(at: issued.addingTimeInterval(-60.01)))

        #expect(try ProviderToken.parse(try handMade(claims: #"{"iss":"TEAM123456","iat":1795541234}"#)).issuedAt == 1_795_541_234)
        #expect(try ProviderToken.parse(try handMade(claims: #"{"iss":"TEAM123456","iat":"1795541234"}"#)).issuedAt == 1_795_541_234)
        #expect(try ProviderToken.parse(try handMade(claims: #"{"iss":"TEAM123456","iat":1.79554123452e9}"#)).issuedAt == 1_795_541_234.52)
        for claims in [#"{"iss":"TEAM123456","iat":"1795541234.52"}"#, #"{"iss":"TEAM123456","iat":true}"#, #"{"iss":"TEAM123456","iat":null}"#] {
            #expect(throws: Rejection.self) { try ProviderToken.parse(try handMade(claims: claims)) }
        }
    }

    @Test(arguments: [
        (#"{"alg":"HS256","kid":"KEY1234567"}"#, #"{"iss":"TEAM123456","iat":1}"#),
        (#"{"alg":"ES256"}"#, #"{"iss":"TEAM123456","iat":1}"#),
        (#"{"alg":"ES256","kid":"KEY1234567"}"#, #"{"iat":1}"#),
        (#"{"alg":"ES256","kid":"KEY1234567"}"#, #"{"iss":"TEAM123456","iat":"soon"}"#),
    ])
    func rejectsTokensAPNsRejects(header: String, claims: String) throws {
        let jwt = try handMade(header: header, claims: claims)
        #expect(throws: Rejection.self) { try ProviderToken.parse(jwt) }
        do { _ = try ProviderToken.parse(jwt) } catch { #expect(error.reason == .invalidProviderToken) }
    }

    @Test func rejectsGarbage() {
        for jwt in ["", "a.b", "a.b.c", "....", "eyJ.eyJ.x"] {
            #expect(throws: Rejection.self) { try ProviderToken.parse(jwt) }
        }
    }

    @Test func expiresAfterOneHour() throws {
        let issued = Date(timeIntervalSince1970: 1_800_000_000)
        let token = try ProviderToken.parse(ProviderToken.sign(teamID: "TEAM123456", keyID: "KEY1234567", issuedAt: issued, key: key))
        #expect(!token.isExpired(at: issued.addingTimeInterval(3600)))
        #expect(token.isExpired(at: issued.addingTimeInterval(3601)))
    }

    private func handMade(header: String = #"{"alg":"ES256","kid":"KEY1234567"}"#, claims: String) throws -> String {
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
