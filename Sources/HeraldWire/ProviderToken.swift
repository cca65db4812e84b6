public import Crypto

public import struct Foundation.Data
public import struct Foundation.Date

/// An APNs provider authentication token: a JWT signed with ES256 by a team's `.p8` key.
///
/// ```swift
/// let jwt = try ProviderToken.sign(teamID: "TEAM123456", keyID: "KEY1234567", issuedAt: .now, key: privateKey)
/// let token = try ProviderToken.parse(jwt)      // header and claims, signature not yet checked
/// try token.verify(with: privateKey.publicKey)
/// ```
public struct ProviderToken: Sendable, Hashable {
    /// The `kid` header: the 10-character key id.
    public var keyID: String
    /// The `iss` claim: the 10-character team id.
    public var teamID: String
    /// The `iat` claim, in seconds since 1970, as sent: a JSON number (RFC 7519's NumericDate, which may have a
    /// fraction, as `time.time()` gives) or a string of digits.
    public var issuedAt: Double
    let signingInput: Data
    let signature: Data

    /// Parses the compact JWS form without verifying the signature.
    ///
    /// - Throws: ``Rejection`` `InvalidProviderToken` when the token is not an ES256 JWT with `kid`, `iss` and `iat`.
    public static func parse(_ jwt: some StringProtocol) throws(Rejection) -> ProviderToken {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Base64URL.decode(parts[0]),
            let claimsData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw Rejection(.invalidProviderToken, "the provider token is not a compact JWT") }
        guard let header = try? JSONValue.parse(headerData), let claims = try? JSONValue.parse(claimsData) else {
            throw Rejection(.invalidProviderToken, "the provider token's header or claims are not JSON")
        }
        guard header["alg"]?.stringValue == "ES256" else {
            throw Rejection(.invalidProviderToken, "the provider token must be signed with ES256")
        }
        guard let keyID = header["kid"]?.stringValue, !keyID.isEmpty else {
            throw Rejection(.invalidProviderToken, "the provider token has no \"kid\"")
        }
        guard let teamID = claims["iss"]?.stringValue, !teamID.isEmpty else {
            throw Rejection(.invalidProviderToken, "the provider token has no \"iss\"")
        }
        guard let issuedAt = claims["iat"].flatMap(Self.seconds(from:)) else {
            throw Rejection(.invalidProviderToken, "the provider token has no numeric \"iat\"")
        }
        let signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        return ProviderToken(keyID: keyID, teamID: teamID, issuedAt: issuedAt, signingInput: signingInput, signature: signature)
    }

    /// `iat` as a JSON number (with or without a fraction), or as a string of digits as some clients send it.
    private static func seconds(from value: JSONValue) -> Double? {
        switch value {
        case .integer(let seconds): Double(seconds)
        case .number(let seconds) where seconds.isFinite: seconds
        case .string(let text): Int64(text).map(Double.init)
        default: nil
        }
    }

    /// Checks the ES256 signature (raw r‖s, 64 bytes) against `publicKey`.
    ///
    /// - Throws: ``Rejection`` `InvalidProviderToken` when the signature does not verify.
    public func verify(with publicKey: P256.Signing.PublicKey) throws(Rejection) {
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            publicKey.isValidSignature(ecdsa, for: signingInput)
        else { throw Rejection(.invalidProviderToken, "the provider token's signature does not verify") }
    }

    /// Whether the token is older than APNs allows (one hour) at `now`.
    public func isExpired(at now: Date) -> Bool {
        issuedAt < now.timeIntervalSince1970 - Self.lifetime
    }

    /// Whether the token claims to be issued later than `now`, beyond a minute's difference between clocks.
    public func isIssuedInTheFuture(at now: Date) -> Bool {
        issuedAt > now.timeIntervalSince1970 + Self.clockSkew
    }

    /// Seconds from the token's `iat` to `now`, rounded down: negative for a token from the future, and held to
    /// `-Int64.max...Int64.max` (so it can be negated), as `iat` is whatever finite number the sender chose (`1e300` as well).
    public func ageInSeconds(at now: Date) -> Int64 {
        let age = (now.timeIntervalSince1970 - issuedAt).rounded(.down)
        return Int64(exactly: age) ?? (age < 0 ? -.max : .max)
    }

    /// APNs refuses tokens older than this many seconds.
    public static let lifetime: Double = 3600

    /// How far ahead of the gateway's clock a provider's clock may run.
    public static let clockSkew: Double = 60

    /// Signs a new provider token.
    public static func sign(
        teamID: String,
        keyID: String,
        issuedAt: Date,
        key: P256.Signing.PrivateKey
    ) throws -> String {
        let header = JSONValue.object(["alg": .string("ES256"), "kid": .string(keyID), "typ": .string("JWT")])
        let claims = JSONValue.object(["iss": .string(teamID), "iat": .integer(Int64(issuedAt.timeIntervalSince1970))])
        let input = Base64URL.encode(header.encoded()) + "." + Base64URL.encode(claims.encoded())
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
