import Foundation
import HeraldStore
import HeraldWire
import Synchronization
import Testing

@testable import HeraldGateway

/// The link's bookkeeping of what is in the store and what it was offered, without a socket.
@Suite struct DeviceLinkBacklogTests {
    private static func notification(id: Int64) -> StoredNotification {
        var notification = StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: DeviceToken.random(), deviceID: "device", bundleID: "com.example.app",
            topic: "com.example.app", pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil, payload: Data("{}".utf8),
            receivedAt: Date())
        notification.id = id
        return notification
    }

    /// Counts a link's wake-ups.
    private final class Wakes: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func wake() { count.withLock { $0 += 1 } }
    }

    /// A link that has read its backlog and is up to date.
    private static func caughtUpLink(wakes: Wakes) -> DeviceLink {
        let link = DeviceLink(deviceID: "device", window: 8) { wakes.wake() }
        guard case .fetch(let after, let limit, let mark) = link.nextStep() else { preconditionFailure("a new link reads its backlog") }
        link.fetched([], limit: limit, mark: mark) { _ in true }
        #expect(after == 0)
        #expect(link.nextStep() == nil)
        return link
    }

    @Test func resynchronizingReadsWhatIsPendingAfterTheLastOneHandled() {
        let wakes = Wakes()
        let link = Self.caughtUpLink(wakes: wakes)
        link.offer(Self.notification(id: 5))
        guard case .send(let sent) = link.nextStep() else {
            Issue.record("an offered notification is sent")
            return
        }
        #expect(sent.map { $0.id } == [5])
        #expect(link.nextStep() == nil)

        let before = wakes.value
        link.resynchronize()
        #expect(wakes.value == before + 1)
        guard case .fetch(let after, _, _) = link.nextStep() else {
            Issue.record("a resynchronized link reads the store")
            return
        }
        #expect(after == 5)
    }

    @Test func aFetchUnderWayWhenNoticesWereMissedDoesNotEndTheBacklog() {
        let wakes = Wakes()
        let link = DeviceLink(deviceID: "device", window: 8) { wakes.wake() }
        guard case .fetch(_, let limit, let mark) = link.nextStep() else {
            Issue.record("a new link reads its backlog")
            return
        }
        // The fetch started before the missed commits: it comes back short, yet the store may hold more.
        link.resynchronize()
        link.fetched([], limit: limit, mark: mark) { _ in true }
        guard case .fetch = link.nextStep() else {
            Issue.record("the link reads the store again")
            return
        }
    }

    @Test func aClosedLinkIgnoresResynchronizing() {
        let wakes = Wakes()
        let link = Self.caughtUpLink(wakes: wakes)
        link.close(DeviceLink.CloseReason.shutdown)
        guard case .close = link.nextStep() else {
            Issue.record("the link closes")
            return
        }
        link.resynchronize()
        guard case .close = link.nextStep() else {
            Issue.record("still closing")
            return
        }
    }
}
