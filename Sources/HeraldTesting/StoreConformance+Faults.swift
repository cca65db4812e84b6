import Foundation
import HeraldStore
import HeraldWire
import Testing

extension StoreConformance {
    /// Fault rules round-trip as the admin API wrote them, oldest first, without the expired ones; one is removed by
    /// id; a gateway's start removes the transient and expired ones and keeps the persistent; clearing removes all. A
    /// faulted notification arrives discarded and keeps what the rule did.
    static func faultRules(_ store: any Store) async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var match = FaultRule.Match()
        match.token = "ab12"
        match.payload = FaultRule.PayloadMatch(pointer: "/aps/alert/title", value: .string("Hi"))
        let answer = FaultRule(
            id: "f00000001", match: match, scope: .count(2), action: .answer(.unregistered, timestamp: 1_600_000_000_000), createdAt: now)
        let kept = FaultRule(
            id: "f00000002", scope: .share(percent: 12.5, seed: 7), action: .goAway(.shutdown, after: 3), createdAt: now.addingTimeInterval(1),
            persistent: true)
        let expired = FaultRule(id: "f00000003", action: .stall, createdAt: now.addingTimeInterval(-700))
        for rule in [kept, answer, expired] { try await store.saveFaultRule(rule) }
        #expect(try await store.faultRules(at: now) == [answer, kept])
        #expect(try await store.removeFaultRule(id: answer.id))
        #expect(try await store.removeFaultRule(id: answer.id) == false)

        try await store.saveFaultRule(answer)
        #expect(try await store.removeFaultRules(keepingPersistent: true, now: now) == 2)  // the transient and the expired
        #expect(try await store.faultRules(at: now) == [kept])
        #expect(try await store.removeFaultRules(keepingPersistent: false, now: now) == 1)
        #expect(try await store.faultRules(at: now).isEmpty)

        let device = try await store.issueVirtualToken(bundleID: "com.example.a", environment: .development, at: now)
        var faulted = StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: device.token, bundleID: "com.example.a", topic: "com.example.a", pushType: .alert,
            priority: .immediate, expiration: nil, collapseID: nil, payload: Data("{}".utf8), receivedAt: now)
        faulted.delivery = Delivery(state: .discarded, discardedAt: now, discardReason: .faulted)
        _ = try await store.insertNotifications([faulted])
        try await store.recordFault(answer.summary, uniqueID: faulted.uniqueID, at: now)
        let read = try #require(try await store.notification(id: faulted.uniqueID))
        #expect(read.delivery.state == .discarded && read.delivery.discardReason == .faulted)
        #expect(read.response == NotificationResponse(action: NotificationResponse.faulted, text: answer.summary, at: now))
    }
}
