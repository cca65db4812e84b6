public import Foundation
public import HeraldStore
public import HeraldWire

/// The provider-token rules APNs applies per connection, as a value type that decides and remembers.
///
/// The first valid token binds the connection to its team. A later token from another team is
/// `UnrelatedKeyIdInToken`; a token other than the current one issued within 20 minutes of it is
/// `TooManyProviderTokenUpdates`. The 20 minutes run between the tokens' `iat`s, not from when the current
/// token reached this connection: a connection that starts with a token near the end of its hour (shared by
/// the provider's connections) can take its successor at once.
public struct ConnectionAuthState: Sendable, Hashable {
    /// The team of the connection's first valid token.
    public private(set) var teamID: String?
    /// The token in use and its `iat`.
    public private(set) var currentToken: String?
    public private(set) var currentTokenIssuedAt: Double?

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
        if token.isIssuedInTheFuture(at: now) {
            throw Rejection(.invalidProviderToken, "the token's iat is later than the gateway's clock; check the provider's clock")
        }
        if jwt == currentToken { return }
        if let issuedAt = currentTokenIssuedAt, token.issuedAt - issuedAt < Self.minimumTokenUpdateInterval {
            throw Rejection(.tooManyProviderTokenUpdates, "a connection may change its provider token once every 20 minutes (by iat)")
        }
        teamID = token.teamID
        currentToken = jwt
        currentTokenIssuedAt = token.issuedAt
    }
}
