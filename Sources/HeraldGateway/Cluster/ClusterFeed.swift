import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// Hands every notification committed anywhere in the cluster to this node's device links and to the console's live
/// log, in commit order.
///
/// A device's link takes notifications in id order (it reads what is pending after the last one it handled), and ids
/// follow commit order across the cluster; so this node's own commits wait for their notice too, rather than
/// overtake another node's commit that came first. The rows of this node's commits are in memory already; another
/// node's are read from the store, and only those pending for a linked device unless the console follows the log.
final class ClusterFeed: Service, Sendable {
    private let store: any ClusterStore
    private let hub: DeviceHub
    private let events: DeliveryEvents
    private let logger: Logger
    /// This node's committed batches, by their first id, until their notice comes.
    private let committedHere = Mutex<[Int64: [StoredNotification]]>([:])

    init(store: any ClusterStore, hub: DeviceHub, events: DeliveryEvents, logger: Logger) {
        self.store = store
        self.hub = hub
        self.events = events
        self.logger = logger
    }

    /// The writer's callback: a batch this node committed.
    func committed(_ batch: [StoredNotification]) {
        guard let first = batch.first?.id else { return }
        committedHere.withLock { $0[first] = batch }
    }

    func run() async throws {
        for await notice in store.commitNotices().cancelOnGracefulShutdown() {
            switch notice {
            case .resynchronize:
                // Commits may have gone by unannounced (the store's listening connection was lost): every link reads
                // the store again, which has them all.
                hub.resynchronize()
            case .committed(let nodeID, let ids):
                await handOn(ids, committedHere: nodeID == store.nodeID)
            }
        }
    }

    private func handOn(_ ids: ClosedRange<Int64>, committedHere here: Bool) async {
        // Batches are announced in id order, so a batch of this node's at or below these ids has had its notice: one
        // whose rows came back after its notice went by is dropped here, and was read from the store.
        let local = committedHere.withLock { batches in
            let batch = here ? batches.removeValue(forKey: ids.lowerBound) : nil
            if batches.keys.contains(where: { $0 <= ids.upperBound }) {
                batches = batches.filter { $0.key > ids.upperBound }
            }
            return batch
        }
        let batch: [StoredNotification]
        if let local {
            batch = local
        } else {
            guard events.isFollowed || hub.hasLinks else { return }
            do {
                batch = try await store.notifications(in: ids, pendingOnly: !events.isFollowed)
            } catch {
                logger.error("cannot read a commit of another node", metadata: ["ids": "\(ids)", "error": "\(error.message)"])
                hub.resynchronize()  // each link reads its own pending notifications, retrying until the store answers
                return
            }
        }
        hub.committed(batch)
        events.publish { DeliveryEvents.committed(batch) }
    }
}
