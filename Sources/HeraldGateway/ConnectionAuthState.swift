public import Foundation
public import HeraldStore
public import HeraldWire

/// The provider-token rules APNs applies per connection, as a value type that decides and remembers.
///
/// The first valid token binds the connection to its team. A later token from another team is
/// `UnrelatedKeyIdInToken`; a token other than the current one within 20 minutes of it is
/// `TooManyProviderTokenUpdates`.
public struct ConnectionAuthState: Sendable, Hashable {
    /// The team of the connection's first valid token.
    public private(set) var teamID: String?
    /// The token in use and when it was first accepted on this connection.
    public private(set) var currentToken: String?
    public private(set) var currentTokenSince: Date?

    /// APNs lets a connection change its token at most this often.
    public static let minimumTokenUpdateInterval: TimeInterval = 20 * 60

    public init() {}

    /// Applies the connection rules to a token whose signature and key already checked out.
    ///
    /// - Parameters:
    ///   - jwt: The compact token as sent.
    ///   - token: Its parsed header and claims.
    ///   - key: The key it names.
    ///   - environment: The gateway's environment.
    ///   - now: The current time.
    /// - Throws: ``Rejection`` with the reason APNs gives; the state is unchanged then.
    public mutating func admit(
        jwt: String,
        token: ProviderToken,
        key: ProviderKey,
        environment: APNsEnvironment,
        now: Date
    ) throws(Rejection) {
        if key.environment != environment {
            throw Rejection(.badEnvironmentKeyIDInToken, "key \(key.keyID) belongs to \(key.environment), this gateway is \(environment)")
        }
        if let teamID, teamID != token.teamID {
            throw Rejection(.unrelatedKeyIDInToken, "this connection belongs to team \(teamID), the token names team \(token.teamID)")
        }
        if token.isExpired(at: now) {
            throw Rejection(.expiredProviderToken, "the token was issued more than an hour ago; sign a new one")
        }
        if jwt == currentToken { return }
        if let since = currentTokenSince, now.timeIntervalSince(since) < Self.minimumTokenUpdateInterval {
            throw Rejection(.tooManyProviderTokenUpdates, "a connection may change its provider token once every 20 minutes")
        }
        teamID = token.teamID
        currentToken = jwt
        currentTokenSince = now
    }
}
