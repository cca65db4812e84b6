import Foundation
import HeraldStore
import Synchronization

/// The delivery state of one device's open link: what is in flight (sent, not yet acknowledged), what
/// waits to be sent, and whether older pending notifications must first be read from the store.
///
/// At most ``window`` notifications are in flight, so a device that never acknowledges costs a bounded
/// amount of memory; the rest wait in the store and are read in order as acknowledgements arrive.
final class DeviceLink: Sendable {
    /// What the link's sender should do next.
    enum Step {
        case send([StoredNotification])
        /// Read up to `limit` pending notifications after `after` from the store, then call ``fetched(_:limit:mark:sendable:)``.
        case fetch(after: Int64, limit: Int, mark: Int)
    }

    /// Why a link stopped.
    enum CloseReason: Sendable {
        /// The device opened a newer link.
        case replaced
        case shutdown
        /// The device went away or broke the protocol.
        case ended
    }

    fileprivate struct State {
        var inFlight: [UUID: Int64] = [:]
        var outbox: [StoredNotification] = []
        /// The highest id handed to the sender; everything pending at or below it is in flight or done.
        var cursor: Int64 = 0
        /// Pending notifications above the cursor are in the store, not in memory.
        var backlog = true
        /// Counts notifications left in the store while ``backlog`` was set, so a fetch racing a commit
        /// does not clear the backlog too early.
        var missed = 0
        var fetching = false
        var waiter: CheckedContinuation<Void, Never>?
        var closeReason: CloseReason?
        var closed: Bool { closeReason != nil }
    }

    let deviceID: String
    let window: Int
    private let state = Mutex(State())

    init(deviceID: String, window: Int) {
        self.deviceID = deviceID
        self.window = window
    }

    /// A notification for this device was committed; it is sent now if the link keeps up, else read later.
    func offer(_ notification: StoredNotification) {
        guard let id = notification.id else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.closed, id > state.cursor else { return nil }
            if state.backlog || state.inFlight.count >= window {
                state.backlog = true
                state.missed += 1
                return nil
            }
            state.inFlight[notification.uniqueID] = id
            state.cursor = id
            state.outbox.append(notification)
            return state.takeWaiter()
        }
        waiter?.resume()
    }

    /// The device acknowledged `uniqueID`: its store id, or nil when it was not in flight on this link.
    func acknowledge(_ uniqueID: UUID) -> Int64? {
        let (id, waiter): (Int64?, CheckedContinuation<Void, Never>?) = state.withLock { state in
            let id = state.inFlight.removeValue(forKey: uniqueID)
            return (id, state.backlog ? state.takeWaiter() : nil)
        }
        waiter?.resume()
        return id
    }

    /// Waits for the next thing to do; nil once the link is closed.
    func next() async -> Step? {
        while true {
            let step: Step?? = state.withLock { state in
                if state.closed { return .some(nil) }
                if !state.outbox.isEmpty {
                    defer { state.outbox = [] }
                    return .send(state.outbox)
                }
                if state.backlog, !state.fetching, state.inFlight.count < window {
                    state.fetching = true
                    return .fetch(after: state.cursor, limit: window - state.inFlight.count, mark: state.missed)
                }
                return nil
            }
            if let step { return step }
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    let ready = state.closed || !state.outbox.isEmpty
                        || (state.backlog && !state.fetching && state.inFlight.count < window)
                    if !ready { state.waiter = continuation }
                    return ready
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// What a fetch read: the sendable ones are queued, the others only passed over (the caller discards
    /// them). The backlog is clear once a fetch comes back short and nothing was committed meanwhile.
    func fetched(_ notifications: [StoredNotification], limit: Int, mark: Int, sendable: (StoredNotification) -> Bool) {
        state.withLock { state in
            state.fetching = false
            for notification in notifications {
                guard let id = notification.id, id > state.cursor else { continue }
                state.cursor = id
                guard sendable(notification) else { continue }
                state.inFlight[notification.uniqueID] = id
                state.outbox.append(notification)
            }
            if notifications.count < limit, state.missed == mark {
                state.backlog = false
            }
        }
    }

    /// A fetch failed: try again on the next wake-up.
    func fetchFailed() {
        state.withLock { $0.fetching = false }
    }

    /// Stops the link; the first reason given is the one that counts.
    func close(_ reason: CloseReason) {
        let waiter = state.withLock { state in
            if state.closeReason == nil { state.closeReason = reason }
            return state.takeWaiter()
        }
        waiter?.resume()
    }

    var closeReason: CloseReason? { state.withLock { $0.closeReason } }
}

extension DeviceLink.State {
    fileprivate mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
        defer { waiter = nil }
        return waiter
    }
}
