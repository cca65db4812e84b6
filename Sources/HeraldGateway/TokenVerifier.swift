import HeraldStore
import HeraldWire
import NIOCore

/// Parses bearer tokens and checks their signatures, each distinct token once.
final class TokenVerifier: Sendable {
    private struct Verified: Sendable {
        var token: ProviderToken
        /// The key the signature was checked against; a replaced key is checked again.
        var publicKeyPEM: String
    }

    private let verified: ExpiringCache<String, Verified>

    init(cacheLimit: Int) {
        // A token lives an hour at most; remembering it longer than that is never useful.
        verified = ExpiringCache(timeToLive: .hours(1), limit: cacheLimit)
    }

    /// The token's header and claims; a token that verified before is not parsed again.
    ///
    /// - Throws: ``Rejection`` `InvalidProviderToken` when it is not an ES256 JWT with `kid`, `iss` and `iat`.
    func parse(_ jwt: String) throws(Rejection) -> ProviderToken {
        if let cached = verified.value(for: jwt) { return cached.token }
        return try ProviderToken.parse(jwt)
    }

    /// Checks `token` against the key it names, doing ECDSA only the first time for a token and key.
    ///
    /// - Returns: The key's record.
    /// - Throws: ``Rejection`` `InvalidProviderToken` (unknown key, bad signature) or `Forbidden` (revoked key).
    func check(_ jwt: String, _ token: ProviderToken, key: ResolvedKey?) throws(Rejection) -> ProviderKey {
        guard let key else {
            throw Rejection(.invalidProviderToken, "no key \(token.keyID) for team \(token.teamID)")
        }
        // Only tokens that verify are remembered, so forged ones cannot fill the cache.
        if verified.value(for: jwt)?.publicKeyPEM != key.record.publicKeyPEM {
            try token.verify(with: key.publicKey)
            verified.set(Verified(token: token, publicKeyPEM: key.record.publicKeyPEM), for: jwt)
        }
        // Revocation is told only to holders of the key: a forged token gets InvalidProviderToken.
        if key.record.revokedAt != nil {
            throw Rejection(.forbidden, "key \(token.keyID) has been revoked")
        }
        return key.record
    }
}
