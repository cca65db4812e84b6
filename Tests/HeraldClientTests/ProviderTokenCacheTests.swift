import Crypto
import Foundation
import HeraldTesting
import HeraldWire
import Testing

@testable import HeraldClient

/// Provider tokens: cached, refreshed after ~50 minutes, never more often than every 20, `iat` an integer,
/// and each connection changing tokens at most once per 20 minutes.
@Suite struct ProviderTokenCacheTests {
    private func cache(_ clock: ManualClock) -> ProviderTokenCache {
        ProviderTokenCache(key: ClientFixtures.key, keyID: ClientFixtures.keyID, teamID: ClientFixtures.teamID, clock: clock)
    }

    @Test func oneTokenIsReusedUntilFiftyMinutesThenReplaced() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000.7))
        let tokens = cache(clock)
        let first = tokens.token()
        #expect(first.issuedAt.timeIntervalSince1970 == 1_800_000_000)
        clock.advance(by: 49 * 60)
        #expect(tokens.token() == first)
        clock.advance(by: 60)
        let second = tokens.token()
        #expect(second != first)
        let parsed = try ProviderToken.parse(second.jwt)
        #expect(parsed.issuedAt == 1_800_000_000 + 50 * 60)
        #expect(parsed.keyID == ClientFixtures.keyID && parsed.teamID == ClientFixtures.teamID)
        try parsed.verify(with: ClientFixtures.key.publicKey)
    }

    @Test func iatIsAJSONInteger() throws {
        let jwt = cache(ManualClock()).token().jwt
        let claims = try JSONValue.parse(Base64URL.decode(jwt.split(separator: ".")[1])!)
        guard case .integer = claims["iat"] else {
            Issue.record("iat is \(String(describing: claims["iat"]))")
            return
        }
    }

    @Test func neverSignsMoreOftenThanEveryTwentyMinutes() {
        let clock = ManualClock()
        let tokens = cache(clock)
        let first = tokens.token(maximumAge: 0)
        clock.advance(by: 19 * 60)
        #expect(tokens.token(maximumAge: 0) == first)
        clock.advance(by: 60)
        #expect(tokens.token(maximumAge: 0) != first)
    }

    @Test func aConnectionKeepsItsTokenForTwentyMinutesAndTakesOnlyTokensThatLast() throws {
        let clock = ManualClock()
        let tokens = cache(clock)
        var old = TokenBinding()
        let first = old.jwt(from: tokens)
        // 45 minutes later a new connection opens: the shared token would expire within 20 minutes, so it
        // gets a fresh one, while the old connection keeps its own.
        clock.advance(by: 45 * 60)
        var new = TokenBinding()
        let fresh = new.jwt(from: tokens)
        #expect(fresh != first)
        #expect(old.jwt(from: tokens) == first)
        // At 50 minutes the old connection moves to the fresh token (it held its own for 50).
        clock.advance(by: 5 * 60)
        #expect(old.jwt(from: tokens) == fresh)
        // The new connection keeps the fresh token until it is 50 minutes old, well within its hour.
        clock.advance(by: 44 * 60)
        #expect(new.jwt(from: tokens) == fresh)
        clock.advance(by: 60)
        let third = new.jwt(from: tokens)
        #expect(third != fresh)
        #expect(try ProviderToken.parse(third).isExpired(at: clock.now()) == false)
    }

    @Test func aConnectionBoundLateHoldsItsTokenTwentyMinutesEvenPastFifty() {
        let clock = ManualClock()
        let tokens = cache(clock)
        _ = tokens.token()
        clock.advance(by: 35 * 60)  // younger than 39 minutes: a new connection takes it
        var binding = TokenBinding()
        let taken = binding.jwt(from: tokens)
        #expect(taken == tokens.token().jwt)
        clock.advance(by: 16 * 60)  // the token is 51 minutes old, held for 16
        #expect(binding.jwt(from: tokens) == taken)
        clock.advance(by: 4 * 60)  // held for 20: now it may change
        #expect(binding.jwt(from: tokens) != taken)
    }
}
