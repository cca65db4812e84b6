import HeraldStore
import Logging
import ServiceLifecycle

/// Runs the store's housekeeping on a fixed beat, away from requests.
struct StoreMaintenance: Service {
    let store: any Store
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // A checkpoint on a full disk fails every beat until space returns: said once, and once when it works again.
        let faults = StoreFaultLog(work: "store maintenance", logger: logger)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await store.maintain()
                faults.succeeded()
            } catch {
                // A shutdown interrupting a checkpoint is no failure.
                if !Task.isCancelled { faults.failed(error) }
            }
            try? await Task.sleep(for: interval)
        }
    }
}
