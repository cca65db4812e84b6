import Foundation
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import HeraldGateway

/// The batching writer on its own, over a real SQLite store that can hold its commits.
@Suite(.timeLimit(.minutes(1))) struct NotificationWriterTests {
    let eventLoop = MultiThreadedEventLoopGroup.singleton.next()

    private func notification(_ index: Int) -> StoredNotification {
        StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: .random(), bundleID: "com.example.app",
            topic: "com.example.app", pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil,
            payload: Data(#"{"aps":{"alert":"n\#(index)"}}"#.utf8), receivedAt: Date(timeIntervalSince1970: 1_700_000_000)
        )
    }

    /// Requests read in one turn of an event loop (a burst on one connection, or on several) share a commit.
    @Test func whatOneEventLoopTurnSubmitsSharesOneCommit() async throws {
        let path = TemporaryPath.make("herald-writer", suffix: ".sqlite")
        let store = FaultInjectingStore(wrapping: try SQLiteStore(path: path))
        let writer = NotificationWriter(
            store: store, batchLimit: 100, queueLimit: 100, metrics: GatewayMetrics(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), onCommitted: { _ in }
        )
        let answered = Watched(0)
        try await eventLoop.submit { [eventLoop] in
            for index in 0..<5 {
                writer.submit(notification(index), on: eventLoop) { _ in answered.update { $0 += 1 } }
            }
        }.get()
        #expect(await answered.wait { $0 >= 5 })
        #expect(store.insertedBatchSizes == [5])
    }

    /// What arrives while a commit runs goes in the next ones, at most `batchLimit` each, in arrival order.
    @Test func aQueueLongerThanTheBatchLimitIsCommittedInOrderedBatches() async throws {
        let path = TemporaryPath.make("herald-writer", suffix: ".sqlite")
        let store = FaultInjectingStore(wrapping: try SQLiteStore(path: path))
        let committed = Watched<[StoredNotification]>([])
        let writer = NotificationWriter(
            store: store, batchLimit: 2, queueLimit: 100, metrics: GatewayMetrics(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            onCommitted: { batch in committed.update { $0 += batch } }
        )
        let notifications = (0..<6).map(notification)
        let answers = Watched<[Int: Rejection?]>([:])
        store.holdWrites()
        for (index, notification) in notifications.enumerated() {
            try await eventLoop.submit { [eventLoop] in  // as the gateway does: from the connection's event loop
                writer.submit(notification, on: eventLoop) { failure in answers.update { $0[index] = failure } }
            }.get()
            if index == 0 {
                #expect(await store.waitForHeldWrites())
            }
        }
        #expect(answers.value.isEmpty, "nothing is answered before its commit")
        store.releaseWrites()
        #expect(await answers.wait { $0.count >= notifications.count })

        #expect(answers.value.values.allSatisfy { $0 == nil })
        #expect(store.insertedBatchSizes == [1, 2, 2, 1])
        // Senders are answered before the commit is handed on, so the last batch may still be on its way here.
        #expect(await committed.wait { $0.count >= notifications.count })
        let stored = committed.value
        #expect(stored.map(\.uniqueID) == notifications.map(\.uniqueID))
        #expect(stored.compactMap(\.id) == stored.compactMap(\.id).sorted())
        #expect(try await store.notificationCount() == notifications.count)
    }
}
