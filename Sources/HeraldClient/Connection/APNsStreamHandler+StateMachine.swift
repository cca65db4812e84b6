import HeraldWire
import NIOCore

extension APNsStreamHandler {
    /// The rules of one client connection to APNs, without I/O: how many requests may be in flight (one until a
    /// request is accepted, then the server's SETTINGS_MAX_CONCURRENT_STREAMS; one again after a 403), stream ids,
    /// draining after a GOAWAY or the client's own shutdown, and liveness by ping when idle.
    ///
    /// ``APNsStreamHandler`` keeps the requests themselves (their promises and answers) and carries out what this
    /// returns.
    struct StateMachine {
        /// How the connection is doing with liveness, after a timer tick.
        enum Liveness: Equatable {
            case fine
            /// Idle for the ping interval: send a ping.
            case sendPing
            /// The ping went unanswered for the ping timeout: the connection is dead.
            case unanswered
        }

        private let pingInterval: TimeAmount
        private let pingTimeout: TimeAmount
        /// The server's SETTINGS_MAX_CONCURRENT_STREAMS.
        private var serverLimit = 1
        private var sawSettings = false
        /// A request has been answered with something other than 403 since the connection opened (or the last 403).
        private var authenticated = false
        private var nextStreamID = 1
        private(set) var isDraining = false
        /// The reason of the server's GOAWAY, if it named one.
        private(set) var goAwayReason: APNsReason?
        private var lastActivity: NIODeadline
        private var pingSentAt: NIODeadline?

        /// - Parameter firstStream: The first stream id to use (odd; tests start near the end of the ids).
        init(pingInterval: TimeAmount, pingTimeout: TimeAmount, now: NIODeadline, firstStream: Int = 1) {
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            lastActivity = now
            nextStreamID = firstStream
        }

        /// Requests that may be in flight at once.
        var limit: Int { authenticated ? serverLimit : 1 }

        /// Whether a new request may start now with `inFlight` requests under way.
        func canStart(inFlight: Int) -> Bool {
            !isDraining && inFlight < limit
        }

        /// The server's SETTINGS.
        mutating func settingsReceived(maximumConcurrentStreams: Int?) {
            if let maximumConcurrentStreams {
                serverLimit = max(0, maximumConcurrentStreams)
            } else if !sawSettings {
                serverLimit = 1000  // none announced: unlimited by RFC 9113; stay reasonable.
            }
            sawSettings = true
        }

        /// The next stream id; nil once the ids are used up (the connection must then drain).
        mutating func nextStream() -> UInt32? {
            guard nextStreamID < Int(Int32.max) - 2 else { return nil }
            defer { nextStreamID += 2 }
            return UInt32(nextStreamID)
        }

        /// A request was answered with `status`: a 403 drops the connection back to one stream.
        mutating func answered(status: Int) {
            authenticated = status != 403
        }

        /// The server's GOAWAY, naming `reason` or not. Returns whether draining starts now.
        mutating func goAwayReceived(reason: APNsReason?) -> Bool {
            goAwayReason = reason
            return startDraining()
        }

        /// No new requests from now on; the connection closes once the requests in flight are answered. Returns
        /// whether draining started now (false when it already had).
        mutating func startDraining() -> Bool {
            guard !isDraining else { return false }
            isDraining = true
            return true
        }

        /// Whether the connection should close now that a request ended with `inFlight` left.
        func shouldClose(inFlight: Int) -> Bool {
            isDraining && inFlight == 0
        }

        /// A frame arrived.
        mutating func heard(at now: NIODeadline) {
            lastActivity = now
        }

        mutating func pingAcknowledged() {
            pingSentAt = nil
        }

        /// The timer ticked; `idle` when nothing is in flight or queued.
        mutating func tick(now: NIODeadline, idle: Bool) -> Liveness {
            if let pingSentAt {
                return now - pingSentAt >= pingTimeout ? .unanswered : .fine
            }
            guard idle, now - lastActivity >= pingInterval else { return .fine }
            pingSentAt = now
            return .sendPing
        }
    }
}
