import Foundation
import HeraldStore
import HeraldWire
import Synchronization

/// The delivery state of one device's open link: what is in flight (sent, not yet acknowledged), what
/// waits to be sent, and whether older pending notifications must first be read from the store.
///
/// At most ``window`` notifications are in flight, so a device that never acknowledges costs a bounded
/// amount of memory; the rest wait in the store and are read in order as acknowledgements arrive.
///
/// The link does no I/O and holds no task: when there is something to do it calls `wake` once, and the
/// link's channel handler then takes ``nextStep()`` until it returns nil.
final class DeviceLink: Sendable {
    /// What the link's channel handler should do next.
    enum Step {
        /// Messages the gateway sends on its own (a token retired elsewhere), before any notification.
        case tell([DeviceLinkMessage])
        case send([StoredNotification])
        /// Read up to `limit` pending notifications after `after` from the store, then call ``fetched(_:limit:mark:sendable:)``.
        case fetch(after: Int64, limit: Int, mark: Int)
        /// The link was closed by someone other than its handler: a newer link, or the gateway stopping.
        case close(CloseReason)
    }

    /// Why a link stopped.
    enum CloseReason: Sendable {
        /// The device opened a newer link.
        case replaced
        case shutdown
        /// The device went away or broke the protocol.
        case ended
    }

    /// What a device acknowledged.
    enum Acknowledged: Equatable {
        /// One of its own notifications, by store id.
        case notification(Int64)
        /// A broadcast on one of its channels (the row is every subscriber's).
        case broadcast(BroadcastDelivery)
    }

    fileprivate struct State {
        var notices: [DeviceLinkMessage] = []
        var inFlight: [UUID: Int64] = [:]
        /// Broadcasts sent and not yet acknowledged, by unique id: outside the window and the cursor (they are no
        /// device's pending rows), at most ``DeviceLink/window`` of them.
        var broadcastsInFlight: [UUID: BroadcastDelivery] = [:]
        var outbox: [StoredNotification] = []
        /// The highest id handed to the sender; everything pending at or below it is in flight or done.
        var cursor: Int64 = 0
        /// Pending notifications above the cursor are in the store, not in memory.
        var backlog = true
        /// Counts notifications left in the store while ``backlog`` was set, so a fetch racing a commit
        /// does not clear the backlog too early.
        var missed = 0
        var fetching = false
        /// `wake` was called and the handler has not yet drained ``nextStep()`` to nil.
        var awake = false
        var closeReason: CloseReason?
        var closed: Bool { closeReason != nil }
    }

    let deviceID: String
    let window: Int
    private let state = Mutex(State())
    private let wake: @Sendable () -> Void

    /// - Parameter wake: Called (from any thread, never under the link's lock) when ``nextStep()`` has
    ///   something new; not again until ``nextStep()`` has returned nil.
    init(deviceID: String, window: Int, wake: @escaping @Sendable () -> Void) {
        self.deviceID = deviceID
        self.window = window
        self.wake = wake
    }

    /// A notification for this device was committed; it is sent now if the link keeps up, else read later.
    func offer(_ notification: StoredNotification) {
        guard let id = notification.id else { return }
        let wakeNow = state.withLock { state in
            guard !state.closed, id > state.cursor else { return false }
            if state.backlog || state.inFlight.count >= window {
                state.backlog = true
                state.missed += 1
                return false
            }
            state.inFlight[notification.uniqueID] = id
            state.cursor = id
            state.outbox.append(notification)
            return state.wakeOnce()
        }
        if wakeNow { wake() }
    }

    /// A broadcast on a channel the device takes, committed now or kept for it: sent at once, whatever the backlog of
    /// its own notifications. Dropped when the device has a window's worth of broadcasts unacknowledged, or already has
    /// this one in flight.
    func offerBroadcast(_ broadcast: StoredNotification) {
        guard let id = broadcast.id, let channelID = broadcast.channelID else { return }
        let wakeNow = state.withLock { state in
            guard !state.closed, state.broadcastsInFlight.count < window, state.broadcastsInFlight[broadcast.uniqueID] == nil else {
                return false
            }
            state.broadcastsInFlight[broadcast.uniqueID] = BroadcastDelivery(deviceID: deviceID, channelID: channelID, notificationID: id)
            state.outbox.append(broadcast)
            return state.wakeOnce()
        }
        if wakeNow { wake() }
    }

    /// Sends `message` to the device on the gateway's own account (not as an answer to a request).
    func tell(_ message: DeviceLinkMessage) {
        let wakeNow = state.withLock { state in
            guard !state.closed else { return false }
            state.notices.append(message)
            return state.wakeOnce()
        }
        if wakeNow { wake() }
    }

    /// The device acknowledged `uniqueID`: what it was, or nil when it was not in flight on this link.
    func acknowledge(_ uniqueID: UUID) -> Acknowledged? {
        let (acknowledged, wakeNow) = state.withLock { state -> (Acknowledged?, Bool) in
            if let broadcast = state.broadcastsInFlight.removeValue(forKey: uniqueID) {
                if state.broadcastsInFlight.isEmpty { state.broadcastsInFlight = [:] }
                return (.broadcast(broadcast), false)
            }
            let id = state.inFlight.removeValue(forKey: uniqueID)
            if state.inFlight.isEmpty { state.inFlight = [:] }  // an idle link keeps no table
            return (id.map(Acknowledged.notification), id != nil && state.backlog && !state.fetching && state.wakeOnce())
        }
        if wakeNow { wake() }
        return acknowledged
    }

    /// The next thing to do, or nil when there is nothing until the next wake-up.
    func nextStep() -> Step? {
        state.withLock { state in
            if let reason = state.closeReason { return .close(reason) }
            if !state.notices.isEmpty {
                defer { state.notices = [] }
                return .tell(state.notices)
            }
            if !state.outbox.isEmpty {
                defer { state.outbox = [] }
                return .send(state.outbox)
            }
            if state.backlog, !state.fetching, state.inFlight.count < window {
                state.fetching = true
                return .fetch(after: state.cursor, limit: window - state.inFlight.count, mark: state.missed)
            }
            state.awake = false
            return nil
        }
    }

    /// What a fetch read: the sendable ones are queued, the others only passed over (the caller discards
    /// them). The backlog is clear once a fetch comes back short and nothing was committed meanwhile.
    func fetched(_ notifications: [StoredNotification], limit: Int, mark: Int, sendable: (StoredNotification) -> Bool) {
        let wakeNow = state.withLock { state in
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
            return state.wakeOnce()
        }
        if wakeNow { wake() }
    }

    /// A fetch failed: the next wake-up tries again.
    func fetchFailed() {
        let wakeNow = state.withLock { state in
            state.fetching = false
            return state.wakeOnce()
        }
        if wakeNow { wake() }
    }

    /// Commits may have gone by unoffered (a cluster node lost its notices of them): read what is pending after the
    /// cursor from the store again.
    func resynchronize() {
        let wakeNow = state.withLock { state in
            guard !state.closed else { return false }
            state.backlog = true
            state.missed += 1  // a fetch under way may predate the missed commits: it must not clear the backlog
            return !state.fetching && state.wakeOnce()
        }
        if wakeNow { wake() }
    }

    /// Stops the link; the first reason given is the one that counts.
    func close(_ reason: CloseReason) {
        let wakeNow = state.withLock { state in
            guard state.closeReason == nil else { return false }
            state.closeReason = reason
            return state.wakeOnce()
        }
        if wakeNow { wake() }
    }
}

extension DeviceLink.State {
    /// True when the caller must call `wake` (once per drain of ``DeviceLink/nextStep()``).
    fileprivate mutating func wakeOnce() -> Bool {
        defer { awake = true }
        return !awake
    }
}
