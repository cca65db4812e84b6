import Foundation
import HeraldStore
import HeraldWire
import Logging
import ServiceLifecycle
import Synchronization

/// Writes acknowledgements and discards to the store in batches, off the path of the link.
///
/// Nothing here needs to be durable before the device moves on: a delivery whose record is lost in a
/// crash is sent again after restart and the device drops it as a duplicate.
final class DeliveryRecorder: Service, Sendable {
    private struct State {
        var delivered: [Int64] = []
        var broadcasts: [BroadcastDelivery] = []
        var discarded: [DiscardReason: [Int64]] = [:]
        var waiter: CheckedContinuation<Void, Never>?
        var closing = false
        var isEmpty: Bool { delivered.isEmpty && broadcasts.isEmpty && discarded.isEmpty }
    }

    private let state = Mutex(State())
    private let store: any Store
    private let clock: any WallClock
    private let interval: Duration
    private let logger: Logger
    /// Says once that delivery marks cannot be written (a full disk), not once per beat.
    private let faults: StoreFaultLog

    init(store: any Store, clock: any WallClock, interval: Duration, logger: Logger) {
        self.store = store
        self.clock = clock
        self.interval = interval
        self.logger = logger
        faults = StoreFaultLog(work: "delivery marks", logger: logger)
    }

    func delivered(_ id: Int64) {
        enqueue { $0.delivered.append(id) }
    }

    func broadcastDelivered(_ delivery: BroadcastDelivery) {
        enqueue { $0.broadcasts.append(delivery) }
    }

    func discarded(_ ids: [Int64], reason: DiscardReason) {
        guard !ids.isEmpty else { return }
        enqueue { $0.discarded[reason, default: []].append(contentsOf: ids) }
    }

    private func enqueue(_ change: (inout State) -> Void) {
        let waiter = state.withLock { state in
            change(&state)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                while let marks = await take() {
                    let started = ContinuousClock.now
                    await write(marks)
                    if !state.withLock({ $0.closing }) { try? await Task.sleep(until: started + interval) }
                }
            } onGracefulShutdown: {
                self.close()
            }
        } onCancel: {
            self.close()
        }
    }

    private func close() {
        enqueue { $0.closing = true }
    }

    /// What one beat writes.
    private struct Marks {
        var delivered: [Int64]
        var broadcasts: [BroadcastDelivery]
        var discarded: [DiscardReason: [Int64]]
    }

    private func take() async -> Marks? {
        while true {
            let taken: Marks?? = state.withLock { state in
                if state.isEmpty { return state.closing ? .some(nil) : nil }
                defer {
                    state.delivered = []
                    state.broadcasts = []
                    state.discarded = [:]
                }
                return Marks(delivered: state.delivered, broadcasts: state.broadcasts, discarded: state.discarded)
            }
            if let taken { return taken }
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if !state.isEmpty || state.closing { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    private func write(_ marks: Marks) async {
        let now = clock.now()
        do {
            try await store.markDelivered(marks.delivered, at: now)
            try await store.markBroadcastsDelivered(marks.broadcasts)
            for (reason, ids) in marks.discarded {
                try await store.discardNotifications(ids, reason: reason, at: now)
            }
            faults.succeeded()
        } catch {
            // The marks are lost, not the notifications: they stay pending, are resent on the next link, and the
            // device drops what it already has.
            faults.failed(error, refused: marks.delivered.count + marks.broadcasts.count + marks.discarded.values.reduce(0) { $0 + $1.count })
        }
    }
}
