import Crypto
import Foundation
import HeraldClient
import HeraldDevice
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Synchronization
import Testing
import UserNotifications

/// A device whose data dir is full: what it received but could not write to its inbox is not acknowledged, so the
/// gateway keeps it pending and delivers it again once the device can write — as the daemon does (it keeps each
/// notification in its inbox before the gateway hears of it).
@Suite(.enabled(if: SmallFilesystem.unavailableReason == nil, "mounting a tmpfs is not permitted here (needs root, as on CI)"))
struct DaemonInboxDiskFullTests {
    /// What a session saw: the device token, and the apns-ids it wrote to its inbox.
    final class Seen: Sendable {
        let token = Mutex<String?>(nil)
        let kept = Mutex<[String]>([])
    }

    /// One session of the daemon's link: each notification goes into `inbox` before it is acknowledged.
    private func session(_ link: GatewayLink, inbox: NotificationStore, seen: Seen) -> Task<String, any Error> {
        Task {
            try await link.session(requests: [.register(topic: TestGateway.topic)]) { event in
                switch event {
                case .registered(_, let token):
                    seen.token.withLock { $0 = token }
                case .notification(let notification):
                    let item = NotificationStore.InboxItem(
                        apnsID: APNsID.format(notification.apnsID), bundleID: notification.bundleID,
                        identifier: notification.requestIdentifier, payload: notification.payload,
                        receivedAt: Date(timeIntervalSince1970: Double(notification.receivedAt) / 1000)
                    )
                    _ = try await inbox.perform { try $0.receive(item) }
                    seen.kept.withLock { $0.append(item.apnsID) }
                default:
                    break
                }
                return true
            }
        }
    }

    @Test func anInboxThatCannotWriteDoesNotAcknowledgeAndGetsTheNotificationAgainOnceItCan() async throws {
        let disk = try SmallFilesystem(size: 2 << 20)
        defer { disk.unmount() }
        let gateway = try await TestGateway.start()
        let inbox = try NotificationStore(path: disk.path + "/notifications.sqlite", owner: .daemonQueues)
        let key = P256.Signing.PrivateKey()
        let link = try GatewayLink(
            gateway: "https://localhost:\(try await gateway.gateway.devicePort())", caPath: gateway.caPath, key: key, journal: nil)

        let first = Seen()
        let failing = session(link, inbox: inbox, seen: first)
        try await waitUntil { first.token.withLock { $0 } != nil }
        let token = try #require(first.token.withLock { $0 })
        try disk.fill()
        let connection = try await gateway.connect()
        let response = try await connection.send(Push(token: token, jwt: gateway.defaultJWT))
        await connection.close()
        #expect(response.status == 200)
        let uniqueID = try #require(response.uniqueID.flatMap { APNsID.parse($0) })

        // The inbox could not write it: the session ends with the store's error, and nothing was acknowledged.
        await #expect(throws: (any Error).self) { try await failing.value }
        #expect(first.kept.withLock { $0 }.isEmpty)
        #expect(try await gateway.store.notification(id: uniqueID)?.delivery.state == .pending)

        disk.free()
        let second = Seen()
        let working = session(link, inbox: inbox, seen: second)
        try await waitUntil { try await gateway.store.notification(id: uniqueID)?.delivery.state == .delivered }
        let apnsID = try #require(response.apnsID)
        #expect(second.kept.withLock { $0 }.map { $0.lowercased() } == [apnsID.lowercased()])
        #expect(try await inbox.perform { try $0.openInbox() }.map { $0.apnsID.lowercased() } == [apnsID.lowercased()])
        working.cancel()
        try await gateway.stop()
    }
}
