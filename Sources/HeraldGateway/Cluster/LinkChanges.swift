import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// Devices linking to this node and leaving it, recorded in the cluster store so that other nodes know them online:
/// a provider's notification for one, accepted on another node, is then not stored under its app's offline policy.
///
/// The hub notes each change as it happens; the recording task writes what accumulated since its last write in one
/// call, only each device's latest change, so a burst of links costs a few writes.
final class LinkChanges: Service, Sendable {
    private struct State {
        var pending: [String: Bool] = [:]
        var waiting: CheckedContinuation<Void, Never>?
        var stopping = false
    }

    private let state = Mutex(State())
    private let store: any ClusterStore
    private let logger: Logger

    init(store: any ClusterStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Notes that `deviceID` linked to this node or left it (the later note for a device wins).
    func note(_ deviceID: String, linked: Bool) {
        let waiting = state.withLock { state in
            state.pending[deviceID] = linked
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    func run() async throws {
        while true {
            let changes = await next()
            guard !changes.isEmpty else { return }  // stopping: leaving the cluster drops this node's links
            do {
                try await store.recordLinks(
                    linked: changes.filter { $0.value }.map(\.key), unlinked: changes.filter { !$0.value }.map(\.key))
            } catch {
                let stopping = state.withLock { state in
                    // Changes noted meanwhile are newer than these.
                    state.pending.merge(changes) { newer, _ in newer }
                    return state.stopping
                }
                if stopping { return }
                logger.warning("cannot record device links in the store; retrying", metadata: ["error": "\(error.message)"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// What was noted since the last call, once there is something; empty when stopping.
    private func next() async -> [String: Bool] {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { continuation in
                    let ready = state.withLock { state in
                        guard state.pending.isEmpty, !state.stopping else { return true }
                        state.waiting = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onGracefulShutdown: {
                self.stop()
            }
        } onCancel: {
            self.stop()
        }
        return state.withLock { state in
            defer { state.pending = [:] }
            return state.pending
        }
    }

    private func stop() {
        let waiting = state.withLock { state in
            state.stopping = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }
}
