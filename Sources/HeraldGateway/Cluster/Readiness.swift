import Synchronization

/// Whether the gateway can take notifications now, for `/healthz`: not while its store cannot be reached.
public final class Readiness: Sendable {
    private let problem = Mutex<String?>(nil)

    /// Nil when ready; else why not, in words.
    public var notReadyReason: String? { problem.withLock { $0 } }

    /// Marks the gateway ready; true when it was not.
    func ready() -> Bool {
        problem.withLock { problem in
            defer { problem = nil }
            return problem != nil
        }
    }

    /// Marks the gateway not ready; true when it was ready.
    func notReady(_ reason: String) -> Bool {
        problem.withLock { problem in
            defer { problem = reason }
            return problem == nil
        }
    }
}
