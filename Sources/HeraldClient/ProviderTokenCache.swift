public import Crypto
public import Foundation
public import HeraldWire
import Synchronization

/// Signs provider tokens and reuses them: one JWT for all connections, signed again after
/// ``refreshInterval`` (about 50 minutes, before APNs' one-hour limit) and never more often than every
/// ``minimumRefreshInterval`` (20 minutes; APNs answers `TooManyProviderTokenUpdates` to faster changes).
///
/// `iat` is always an integer.
public final class ProviderTokenCache: Sendable {
    /// A signed token and its `iat`.
    public struct Token: Sendable, Hashable {
        public var jwt: String
        public var issuedAt: Date
    }

    public let keyID: String
    public let teamID: String
    public let refreshInterval: TimeInterval
    public let minimumRefreshInterval: TimeInterval
    private let key: P256.Signing.PrivateKey
    private let clock: any WallClock
    private let current = Mutex<Token?>(nil)

    /// - Parameters:
    ///   - refreshInterval: Age at which the token is replaced (default 50 minutes).
    ///   - minimumRefreshInterval: The least time between two tokens (default 20 minutes).
    public init(
        key: P256.Signing.PrivateKey,
        keyID: String,
        teamID: String,
        refreshInterval: TimeInterval = 50 * 60,
        minimumRefreshInterval: TimeInterval = 20 * 60,
        clock: any WallClock = SystemWallClock()
    ) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.refreshInterval = refreshInterval
        self.minimumRefreshInterval = minimumRefreshInterval
        self.clock = clock
    }

    /// The current token, signed anew when it has reached ``refreshInterval``.
    public func token() -> Token {
        token(maximumAge: refreshInterval)
    }

    /// The current token, signed anew when older than `maximumAge` — unless the current one is younger than
    /// ``minimumRefreshInterval``, which always wins.
    public func token(maximumAge: TimeInterval) -> Token {
        let now = clock.now()
        return current.withLock { current in
            if let token = current {
                let age = now.timeIntervalSince(token.issuedAt)
                if age < maximumAge || age < minimumRefreshInterval { return token }
            }
            let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            // Signing with a valid P-256 key does not fail.
            let jwt = (try? ProviderToken.sign(teamID: teamID, keyID: keyID, issuedAt: issuedAt, key: key)) ?? ""
            let token = Token(jwt: jwt, issuedAt: issuedAt)
            current = token
            return token
        }
    }

    /// How long APNs accepts a token after its `iat`.
    static let lifetime: TimeInterval = ProviderToken.lifetime

    var now: Date { clock.now() }
}

/// The token one connection uses. APNs lets a connection change its token at most once every 20 minutes,
/// so a connection keeps its token until that token is due for refresh *and* it has used it for 20 minutes;
/// it only takes up a token young enough to stay valid for those 20 minutes.
struct TokenBinding {
    private(set) var token: ProviderTokenCache.Token?
    private(set) var since: Date?

    /// The JWT to send on this connection now.
    mutating func jwt(from cache: ProviderTokenCache) -> String {
        let now = cache.now
        if let token, let since {
            let age = now.timeIntervalSince(token.issuedAt)
            let held = now.timeIntervalSince(since)
            if age < cache.refreshInterval || held < cache.minimumRefreshInterval { return token.jwt }
        }
        // Young enough to last until this connection may change tokens again.
        let fresh = cache.token(maximumAge: ProviderTokenCache.lifetime - cache.minimumRefreshInterval - 60)
        if fresh != token {
            token = fresh
            since = now
        }
        return fresh.jwt
    }
}
