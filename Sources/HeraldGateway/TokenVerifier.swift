import HeraldStore
import HeraldWire
import NIOCore

/// Parses bearer tokens and checks their signatures, each distinct token once.
final class TokenVerifier: Sendable {
    private struct Verified: Sendable {
        var token: ProviderToken
        /// The key the signature was checked against; a replaced key is checked again.
        var publicKeyPEM: String?
    }

    private let verified: ExpiringCache<String, Verified>

    init(cacheLimit: Int) {
        // A token lives an hour at most; remembering it longer than that is never useful.
        verified = ExpiringCache(timeToLive: .hours(1), limit: cacheLimit)
    }

    /// The token's header and claims, parsed once per distinct token.
    ///
    /// - Throws: ``Rejection`` `InvalidProviderToken` when it is not an ES256 JWT with `kid`, `iss` and `iat`.
    func parse(_ jwt: String) throws(Rejection) -> ProviderToken {
        if let cached = verified.value(for: jwt) { return cached.token }
        let token = try ProviderToken.parse(jwt)
        verified.set(Verified(token: token, publicKeyPEM: nil), for: jwt)
        return token
    }

    /// Checks `token` against the key it names, doing ECDSA only the first time for a token and key.
    ///
    /// - Returns: The key's record.
    /// - Throws: ``Rejection`` `InvalidProviderToken` (unknown key, bad signature) or `Forbidden` (revoked key).
    func check(_ jwt: String, _ token: ProviderToken, key: ResolvedKey?) throws(Rejection) -> ProviderKey {
        guard let key else {
            throw Rejection(.invalidProviderToken, "no key \(token.keyID) for team \(token.teamID)")
        }
        if key.record.revokedAt != nil {
            throw Rejection(.forbidden, "key \(token.keyID) has been revoked")
        }
        if verified.value(for: jwt)?.publicKeyPEM != key.record.publicKeyPEM {
            try token.verify(with: key.publicKey)
            verified.set(Verified(token: token, publicKeyPEM: key.record.publicKeyPEM), for: jwt)
        }
        return key.record
    }
}
