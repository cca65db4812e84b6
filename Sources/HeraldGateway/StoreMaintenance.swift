import HeraldStore
import Logging
import ServiceLifecycle

/// Runs the store's housekeeping on a fixed beat, away from requests.
struct StoreMaintenance: Service {
    let store: any Store
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await store.maintain()
            } catch {
                // A shutdown interrupting a checkpoint is no failure.
                if !Task.isCancelled { logger.warning("store maintenance failed", metadata: ["error": "\(error.message)"]) }
            }
            try? await Task.sleep(for: interval)
        }
    }
}
