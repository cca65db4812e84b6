import Foundation
import HeraldStore
import HeraldWire
import NIOCore

/// Turns a bearer token into its key, checking the signature once per distinct token.
final class TokenVerifier: Sendable {
    private struct Verified: Sendable {
        var token: ProviderToken
        var publicKeyPEM: String
    }

    private let directory: Directory
    private let verified: ExpiringCache<String, Verified>

    init(directory: Directory, cacheLimit: Int) {
        self.directory = directory
        // A token lives an hour at most; remembering it longer than that is never useful.
        verified = ExpiringCache(timeToLive: .hours(1), limit: cacheLimit)
    }

    /// Parses `jwt`, finds its key and verifies its signature (or recalls that it did).
    ///
    /// The future fails with ``Rejection`` `InvalidProviderToken` (malformed, unknown key, bad signature)
    /// or `Forbidden` (revoked key).
    func verify(_ jwt: String, on eventLoop: any EventLoop) -> EventLoopFuture<(ProviderToken, ProviderKey)> {
        let cached = verified.value(for: jwt)
        let token: ProviderToken
        do {
            token = try cached?.token ?? ProviderToken.parse(jwt)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        return directory.key(teamID: token.teamID, keyID: token.keyID, on: eventLoop).flatMapThrowing { resolved in
            guard let resolved else {
                throw Rejection(.invalidProviderToken, "no key \(token.keyID) for team \(token.teamID)")
            }
            if resolved.record.revokedAt != nil {
                throw Rejection(.forbidden, "key \(token.keyID) has been revoked")
            }
            if cached?.publicKeyPEM != resolved.record.publicKeyPEM {
                try token.verify(with: resolved.publicKey)
                self.verified.set(Verified(token: token, publicKeyPEM: resolved.record.publicKeyPEM), for: jwt)
            }
            return (token, resolved.record)
        }
    }
}
