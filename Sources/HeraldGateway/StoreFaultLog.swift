import HeraldStore
import Logging
import Synchronization

/// Logs a store failure that repeats (a full disk, a read-only data dir, an unreachable database) once when it
/// starts, once more if its kind changes, and once when the store works again — not once per request or beat.
///
/// One instance per kind of work (notification commits, housekeeping, delivery marks), each with its own state:
/// ```swift
/// let faults = StoreFaultLog(work: "store commits", logger: logger)
/// faults.failed(error, refused: batch.count)  // logs "store commits failing" the first time only
/// faults.succeeded()  // logs "store commits work again" with how many were refused meanwhile
/// ```
final class StoreFaultLog: Sendable {
    private struct Failing {
        var code: StoreError.Code
        var refused: Int
    }

    private let work: String
    private let logger: Logger
    private let failing = Mutex<Failing?>(nil)

    init(work: String, logger: Logger) {
        self.work = work
        self.logger = logger
    }

    /// Whether the last attempt failed.
    var isFailing: Bool { failing.withLock { $0 != nil } }

    /// Counts a failure of `refused` items; logs an error if the work was not already failing this way.
    func failed(_ error: StoreError, refused: Int = 0) {
        let firstOfItsKind = failing.withLock { failing in
            let first = failing?.code != error.code
            failing = Failing(code: error.code, refused: (failing?.refused ?? 0) + refused)
            return first
        }
        guard firstOfItsKind else { return }
        logger.error(
            "\(work) failing until the store can be written again; logged once",
            metadata: ["code": "\(error.code)", "error": "\(error.message)"])
    }

    /// Marks the work as succeeding; logs once if it was failing.
    func succeeded() {
        guard
            let ended = failing.withLock({ failing in
                defer { failing = nil }
                return failing
            })
        else { return }
        logger.notice("\(work) work again", metadata: ["code": "\(ended.code)", "refused": "\(ended.refused)"])
    }
}
