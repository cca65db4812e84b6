import Crypto
import Foundation
import HeraldClient
import HeraldDevice
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import Synchronization
import Testing
import UserNotifications

/// The device's own side of the link (`GatewayLink`, what `herald device` runs) against a live gateway.
@Suite struct GatewayLinkTests {
    /// What one session's handler was given.
    final class Seen: Sendable {
        private let events = Mutex<[GatewayLinkEvent]>([])
        func append(_ event: GatewayLinkEvent) { events.withLock { $0.append(event) } }
        var token: String? {
            events.withLock { $0.lazy.compactMap { if case .registered(_, let token) = $0 { token } else { nil } }.first }
        }
        var apnsIDs: [String] {
            events.withLock { $0.compactMap { if case .notification(let n) = $0 { APNsID.format(n.apnsID) } else { nil } } }
        }
    }

    /// Runs one session that registers the default app and ends after a notification with `lastID` arrives.
    private func session(_ link: GatewayLink, endingAt lastID: String, seen: Seen) -> Task<String, any Error> {
        Task {
            try await link.session(requests: [.register(topic: TestGateway.topic)]) { event in
                seen.append(event)
                if case .notification(let notification) = event { return APNsID.format(notification.apnsID) != lastID }
                return true
            }
        }
    }

    private func link(_ gateway: TestGateway, key: P256.Signing.PrivateKey, journal: String) async throws -> GatewayLink {
        try GatewayLink(
            gateway: "https://localhost:\(try await gateway.gateway.devicePort())", caPath: gateway.caPath, key: key,
            journal: try DeliveryJournal(path: journal)
        )
    }

    private func push(_ gateway: TestGateway, to token: String, apnsID: String) async throws -> APNsResponse {
        let connection = try await gateway.connect()
        let response = try await connection.send(Push(token: token, jwt: gateway.defaultJWT, apnsID: apnsID))
        await connection.close()
        return response
    }

    @Test func aNotificationSentTwiceWithOneAPNsIDIsShownOnceEvenAfterARestart() async throws {
        let gateway = try await TestGateway.start()
        let key = P256.Signing.PrivateKey()
        let journal = TemporaryPath.make("herald-journal", suffix: ".sqlite")
        let retried = APNsID.format(UUID()), last = APNsID.format(UUID())

        let seen = Seen()
        let first = session(try await link(gateway, key: key, journal: journal), endingAt: last, seen: seen)
        try await waitUntil { seen.token != nil }
        let token = try #require(seen.token)
        // A provider that timed out retries with the same apns-id; APNs (and Herald) accept both.
        var answers: [APNsResponse] = []
        for id in [retried, retried, last] { answers.append(try await push(gateway, to: token, apnsID: id)) }
        #expect(answers.map(\.status) == [200, 200, 200])
        _ = try await first.value
        #expect(seen.apnsIDs == [retried, last])
        // The duplicate was acknowledged all the same, so the gateway does not hold it for a resend.
        for answer in answers {
            let uniqueID = try #require(answer.uniqueID.flatMap { APNsID.parse($0) })
            try await waitUntil { try await gateway.store.notification(id: uniqueID)?.delivery.state == .delivered }
        }

        // The device restarts (a new link, the journal reopened from disk) and the provider retries once more.
        let again = Seen(), next = APNsID.format(UUID())
        let second = session(try await link(gateway, key: key, journal: journal), endingAt: next, seen: again)
        try await waitUntil { again.token != nil }
        #expect(again.token == token)
        #expect(try await push(gateway, to: token, apnsID: retried).status == 200)
        #expect(try await push(gateway, to: token, apnsID: next).status == 200)
        _ = try await second.value
        #expect(again.apnsIDs == [next])
        try await gateway.stop()
    }
}
