import Foundation
import HeraldStore
import HeraldWire
import Testing

@testable import HeraldGateway

/// The index that finds a request's fault rules without trying every rule: by token, by a token prefix's first two
/// digits, by topic, and the rules naming none of them; always in the rules' own order, so the first rule wins.
@Suite struct FaultRuleIndexTests {
    static func match(token: String? = nil, prefix: String? = nil, topic: String? = nil) -> FaultRule.Match {
        var match = FaultRule.Match()
        match.token = token
        match.tokenPrefix = prefix
        match.topic = topic
        return match
    }

    static func notification(token: DeviceToken, topic: String) -> StoredNotification {
        StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: token, bundleID: topic, topic: topic, pushType: .alert, priority: .immediate,
            expiration: nil, collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
    }

    @Test func candidatesAreTheRulesThatNameTheRequestOrNothingInOrder() throws {
        let token = try #require(DeviceToken(hex: "ab" + String(repeating: "0", count: 62)))
        let other = try #require(DeviceToken(hex: "cd" + String(repeating: "0", count: 62)))
        let index = FaultRules.RuleIndex([
            Self.match(),  // 0: every request
            Self.match(token: token.hex),  // 1
            Self.match(topic: "com.example.a"),  // 2
            Self.match(prefix: "ab12"),  // 3: looked up by "ab"
            Self.match(prefix: "a"),  // 4: one digit, tried in turn
            Self.match(token: other.hex, topic: "com.example.a"),  // 5: by its token only
        ])
        #expect(index.candidates(for: Self.notification(token: token, topic: "com.example.a")) == [0, 1, 2, 3, 4])
        #expect(index.candidates(for: Self.notification(token: other, topic: "com.example.b")) == [0, 4, 5])
        #expect(index.candidates(for: Self.notification(token: other, topic: "com.example.a")) == [0, 2, 4, 5])
        let unnamed = try #require(DeviceToken(hex: "ef" + String(repeating: "0", count: 62)))
        #expect(index.candidates(for: Self.notification(token: unnamed, topic: "com.example.z")) == [0, 4])
    }
}
