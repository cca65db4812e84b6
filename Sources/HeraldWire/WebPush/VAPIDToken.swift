public import Crypto

public import struct Foundation.Data
public import struct Foundation.Date

/// An application server's identification on a Web Push request (RFC 8292): `Authorization: vapid t=JWT, k=KEY`, the
/// JWT signed with ES256 by the key whose public half is `k`.
///
/// ```swift
/// let header = try VAPIDToken.authorization(audience: "https://localhost:8443", subject: "mailto:ops@example.com",
///                                           expiresAt: .now + 3600, key: key)
/// let token = try VAPIDToken.parse(authorization: header)   // claims and key, signature not yet checked
/// try token.verify()
/// ```
public struct VAPIDToken: Sendable, Hashable {
    /// The `k` parameter: the application server's P-256 public key, uncompressed (65 bytes).
    public var publicKey: Data
    /// The `aud` claim: the push service's origin.
    public var audience: String?
    /// The `exp` claim, seconds since 1970.
    public var expiresAt: Double?
    /// The `sub` claim: how the push service reaches the sender (`mailto:` or `https:`).
    public var subject: String?
    /// The JWT as sent.
    public var jwt: String
    /// Why Apple would refuse ``subject`` (``subjectProblem(_:)``), found once when the token is read; nil when it would
    /// take it.
    public let subjectRefusal: String?
    let signingInput: Data
    let signature: Data

    /// Parses `Authorization: vapid t=…, k=…` without checking the signature or the claims.
    ///
    /// - Throws: ``Rejection`` (`BadAuthorizationHeader`, `BadVapidPublicKey`, `BadJwtToken`) naming what is malformed.
    public static func parse(authorization: String) throws(Rejection) -> VAPIDToken {
        let trimmed = authorization.drop { $0 == " " }
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "vapid" else {
            if trimmed.lowercased().hasPrefix("webpush") {
                throw Rejection(
                    .badAuthorizationHeader,
                    "the WebPush scheme with Crypto-Key (drafts before RFC 8292) is not taken: send Authorization: vapid t=JWT, k=KEY")
            }
            throw Rejection(.badAuthorizationHeader, "send Authorization: vapid t=JWT, k=KEY (RFC 8292)")
        }
        var jwt: String?
        var key: String?
        for parameter in trimmed[space...].split(separator: ",") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = pair[0].trimmingSpaces.lowercased()
            let value = String(pair[1].trimmingSpaces)
            if name == "t" { jwt = value } else if name == "k" { key = value }
        }
        guard let jwt, !jwt.isEmpty else { throw Rejection(.badJWTToken, "the vapid authorization has no t= (the JWT)") }
        guard let key, let publicKey = Base64URL.decode(key), publicKey.count == 65, publicKey.first == 4 else {
            throw Rejection(.badVAPIDPublicKey, "k= must be the application server's uncompressed P-256 public key in base64url (65 bytes)")
        }
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]), let claimsData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw Rejection(.badJWTToken, "t= is not a compact JWT (three base64url parts)") }
        guard let header = try? JSONValue.parse(headerData), let claims = try? JSONValue.parse(claimsData),
            case .object = claims
        else { throw Rejection(.badJWTToken, "the JWT's header or claims are not JSON objects") }
        guard header["alg"]?.stringValue == "ES256" else {
            throw Rejection(.badJWTToken, "the JWT must be signed with ES256, not \(header["alg"]?.stringValue ?? "nothing")")
        }
        let subject = claims["sub"]?.stringValue
        let subjectRefusal: String? =
            if let subject { subjectProblem(subject).map { "\"sub\" \($0)" } } else {
                "the JWT has no \"sub\"; set it to mailto:you@yourdomain or an https: URL of yours"
            }
        return VAPIDToken(
            publicKey: publicKey,
            audience: claims["aud"]?.stringValue,
            expiresAt: claims["exp"]?.doubleValue,
            subject: subject,
            jwt: jwt,
            subjectRefusal: subjectRefusal,
            signingInput: Data("\(parts[0]).\(parts[1])".utf8),
            signature: signature)
    }

    /// Checks the ES256 signature (raw r‖s, 64 bytes) against ``publicKey``.
    ///
    /// - Throws: ``Rejection`` `BadJwtToken` when it does not verify.
    public func verify() throws(Rejection) {
        guard let key = try? P256.Signing.PublicKey(x963Representation: publicKey) else {
            throw Rejection(.badVAPIDPublicKey, "k= is not a point on P-256")
        }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature), key.isValidSignature(ecdsa, for: signingInput)
        else { throw Rejection(.badJWTToken, "the JWT's signature does not verify with k=") }
    }

    /// Makes the header value a sender puts on a request: `vapid t=JWT, k=KEY`.
    public static func authorization(audience: String, subject: String, expiresAt: Date, key: P256.Signing.PrivateKey) throws -> String {
        let header = JSONValue.object(["typ": .string("JWT"), "alg": .string("ES256")])
        let claims = JSONValue.object([
            "aud": .string(audience), "exp": .integer(Int64(expiresAt.timeIntervalSince1970)), "sub": .string(subject),
        ])
        let input = Base64URL.encode(header.encoded()) + "." + Base64URL.encode(claims.encoded())
        let signature = try key.signature(for: Data(input.utf8))
        let jwt = input + "." + Base64URL.encode(signature.rawRepresentation)
        return "vapid t=\(jwt), k=\(Base64URL.encode(key.publicKey.x963Representation))"
    }
}
