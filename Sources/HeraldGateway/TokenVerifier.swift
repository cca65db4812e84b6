import HeraldStore
import HeraldWire
import NIOCore

/// Parses bearer tokens and checks their signatures, each distinct token once.
///
/// Verified tokens are remembered twice: in a cache shared by all connections, and by each connection for
/// the token it used last, so that a connection reusing its token (the common case) takes no shared lock.
final class TokenVerifier: Sendable {
    /// A token whose signature checked out against a key.
    struct Verified: Sendable {
        var jwt: String
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
    /// - Parameter recent: The token the connection verified last.
    /// - Throws: ``Rejection`` `InvalidProviderToken` when it is not an ES256 JWT with `kid`, `iss` and `iat`.
    func parse(_ jwt: String, recent: Verified?) throws(Rejection) -> ProviderToken {
        if let recent, recent.jwt == jwt { return recent.token }
        if let cached = verified.value(for: jwt) { return cached.token }
        return try ProviderToken.parse(jwt)
    }

    /// Checks `token` against the key it names, doing ECDSA only the first time for a token and key.
    ///
    /// - Parameter recent: The token the connection verified last; becomes this one once it verifies.
    /// - Returns: The key's record.
    /// - Throws: ``Rejection`` `InvalidProviderToken` (unknown key, bad signature) or `Forbidden` (revoked key).
    func check(_ jwt: String, _ token: ProviderToken, key: ResolvedKey?, recent: inout Verified?) throws(Rejection) -> ProviderKey {
        guard let key else {
            throw Rejection(.invalidProviderToken, "no key \(token.keyID) for team \(token.teamID)")
        }
        let publicKeyPEM = key.record.publicKeyPEM
        if recent?.jwt != jwt || recent?.publicKeyPEM != publicKeyPEM {
            if let cached = verified.value(for: jwt), cached.publicKeyPEM == publicKeyPEM {
                recent = cached
            } else {
                // Only tokens that verify are remembered, so forged ones cannot fill the cache.
                try token.verify(with: key.publicKey)
                let checked = Verified(jwt: jwt, token: token, publicKeyPEM: publicKeyPEM)
                verified.set(checked, for: jwt)
                recent = checked
            }
        }
        // Revocation is told only to holders of the key: a forged token gets InvalidProviderToken.
        if key.record.revokedAt != nil {
            throw Rejection(.forbidden, "key \(token.keyID) has been revoked")
        }
        return key.record
    }
}
