import Crypto
import Foundation
import HeraldGateway
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// The per-connection provider-token rules, driven by a manual clock.
@Suite struct ConnectionAuthStateTests {
    let clock = ManualClock()
    let signingKey = P256.Signing.PrivateKey()

    private func key(team: String = "TEAM123456", id: String = "KEY1234567", environment: APNsEnvironment = .development) -> ProviderKey {
        ProviderKey(
            teamID: team, keyID: id, topics: [], environment: environment, publicKeyPEM: signingKey.publicKey.pemRepresentation,
            createdAt: clock.now())
    }

    private func token(team: String = "TEAM123456", id: String = "KEY1234567", age: TimeInterval = 0) throws -> (String, ProviderToken) {
        let jwt = try ProviderToken.sign(teamID: team, keyID: id, issuedAt: clock.now().addingTimeInterval(-age), key: signingKey)
        return (jwt, try ProviderToken.parse(jwt))
    }

    private func reason(_ state: inout ConnectionAuthState, _ token: (String, ProviderToken), key: ProviderKey) -> APNsReason? {
        do {
            try state.admit(jwt: token.0, token: token.1, key: key, environment: .development, now: clock.now())
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func firstTokenBindsTheTeamAndMayBeReused() throws {
        var state = ConnectionAuthState()
        let first = try token()
        #expect(reason(&state, first, key: key()) == nil)
        #expect(state.teamID == "TEAM123456")
        clock.advance(by: 600)
        #expect(reason(&state, first, key: key()) == nil)
    }

    @Test func tokensOlderThanAnHourExpire() throws {
        var state = ConnectionAuthState()
        #expect(reason(&state, try token(age: 3601), key: key()) == .expiredProviderToken)
        let fresh = try token()
        #expect(reason(&state, fresh, key: key()) == nil)
        clock.advance(by: 3601)
        #expect(reason(&state, fresh, key: key()) == .expiredProviderToken)
    }

    @Test func aNewTokenWithinTwentyMinutesIsTooManyUpdates() throws {
        var state = ConnectionAuthState()
        #expect(reason(&state, try token(), key: key()) == nil)
        clock.advance(by: 19 * 60)
        #expect(reason(&state, try token(), key: key()) == .tooManyProviderTokenUpdates)
        clock.advance(by: 61)
        #expect(reason(&state, try token(), key: key()) == nil)
    }

    /// The 20 minutes run between the tokens' `iat`s: a connection whose first token is nearly an hour old takes its
    /// successor at once, and backdating tokens does not allow faster changes.
    @Test func updatesAreCountedByIssueTime() throws {
        var state = ConnectionAuthState()
        #expect(reason(&state, try token(age: 3595), key: key()) == nil)
        #expect(reason(&state, try token(), key: key()) == nil)

        var backdating = ConnectionAuthState()
        #expect(reason(&backdating, try token(age: 3000), key: key()) == nil)
        #expect(reason(&backdating, try token(age: 2999), key: key()) == .tooManyProviderTokenUpdates)
        #expect(reason(&backdating, try token(age: 3001), key: key()) == .tooManyProviderTokenUpdates)
    }

    /// A token dated ahead of the gateway's clock would outlive the one-hour limit; a minute of clock difference is
    /// allowed.
    @Test func tokensFromTheFutureAreInvalid() throws {
        var state = ConnectionAuthState()
        #expect(reason(&state, try token(age: -120), key: key()) == .invalidProviderToken)
        #expect(state.currentToken == nil)
        #expect(reason(&state, try token(age: -30), key: key()) == nil)
    }

    @Test func anotherTeamIsUnrelated() throws {
        var state = ConnectionAuthState()
        #expect(reason(&state, try token(), key: key()) == nil)
        clock.advance(by: 30 * 60)
        #expect(
            reason(&state, try token(team: "OTHERTEAM1", id: "OTHERKEY01"), key: key(team: "OTHERTEAM1", id: "OTHERKEY01")) == .unrelatedKeyIDInToken)
        // Another key of the same team is related.
        #expect(reason(&state, try token(id: "KEY7654321"), key: key(id: "KEY7654321")) == nil)
    }

    @Test func keysOfTheOtherEnvironmentAreRefused() throws {
        var state = ConnectionAuthState()
        #expect(reason(&state, try token(), key: key(environment: .production)) == .badEnvironmentKeyIDInToken)
        #expect(state.teamID == nil)
    }
}
