import Foundation
import HeraldStore
import Logging
import ServiceLifecycle

/// Keeps this node's lease in a cluster store: a heartbeat every `interval`, a lease of `lease` from each. Other nodes
/// stop counting this node's device links when its lease runs out (it died, or cannot reach the store); a graceful
/// shutdown leaves at once.
///
/// The heartbeat is also how the node knows it can reach the store: ``readiness`` says not ready from the first one
/// that fails until one succeeds again.
struct ClusterMembership: Service {
    let store: any ClusterStore
    let node: ClusterNode
    let interval: Duration
    let lease: Duration
    let readiness: Readiness
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await store.heartbeat(node, lease: lease)
                if readiness.ready() { logger.info("the store is reachable again", metadata: ["node": "\(node.name)"]) }
            } catch {
                if readiness.notReady("cannot reach the store: \(error.message)") {
                    logger.error(
                        "heartbeat failed: other nodes stop counting this node's devices when its lease runs out",
                        metadata: ["error": "\(error)"])
                }
            }
            try? await Task.sleep(for: interval)
        }
        do {
            try await store.leave(nodeID: node.id)
        } catch {
            logger.warning("cannot leave the cluster; the node's lease runs out by itself", metadata: ["error": "\(error.message)"])
        }
    }
}
