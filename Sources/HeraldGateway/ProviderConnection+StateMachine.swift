import HeraldWire
import NIOCore
import NIOHTTP2

extension ProviderConnection {
    /// Every rule of one provider connection, without I/O: the stream limit (1 until a request succeeds, then more;
    /// back to 1 after a 403), the error budget, closing (idle or unused, spent budget, shutdown) with the GOAWAY held
    /// back until the requests open then have their answers, and the deadlines that protect the gateway from clients
    /// that hold a connection without using it or send without reading.
    ///
    /// Time comes in as the event loop's `now` with each event, and the machine names the one deadline it needs next
    /// (``nextDeadline``); ``ProviderConnectionHandler`` keeps a timer armed for it, reports ``timerFired(now:)``, and
    /// carries out the actions returned.
    struct StateMachine {
        /// What the connection must do next.
        enum Action: Equatable {
            /// Send SETTINGS with this SETTINGS_MAX_CONCURRENT_STREAMS.
            case announce(maximumConcurrentStreams: Int)
            /// Send GOAWAY naming `lastStreamID` and `{"reason": …}`; `thenClose` when nothing is left to answer.
            case sendGoAway(lastStreamID: HTTP2StreamID, reason: APNsReason, thenClose: Bool)
            /// Flush what is written and close the connection.
            case close
            /// Count the connection as closed by a rule of the gateway's: `herald_provider_connections_closed_total{reason=…}`.
            case count(reason: String)
            /// Reset the requests not yet handed on with REFUSED_STREAM (never processed, safe to retry).
            case refuseUnsubmittedStreams
            /// Pass on the read held while the connection could not be written.
            case read
        }

        /// The deadlines, from the configuration.
        struct Timeouts {
            /// No preface and SETTINGS within this of the accept: closed.
            var handshake: TimeAmount
            /// No request showing its sender within this of the accept: GOAWAY `IdleTimeout`.
            var unused: TimeAmount
            /// No frame read or written for this long: GOAWAY `IdleTimeout`.
            var idle: TimeAmount
            /// Writes blocked, or an answer held by the client's flow-control window, for this long: closed.
            var stalled: TimeAmount
            /// After closing began, the requests still open get this long for their answers.
            var grace: TimeAmount
        }

        private enum Phase: Equatable {
            case open
            /// Closing began for `reason`; `owed` requests, all opened at or before `from`, still await their answer
            /// until `deadline` (the end of the grace period).
            case draining(reason: APNsReason, from: HTTP2StreamID, owed: Int, deadline: NIODeadline)
            /// The GOAWAY is out; the connection closes when the rest are answered, or at `deadline`.
            case goAwaySent(reason: APNsReason, deadline: NIODeadline)
            /// Closed, after closing for `reason` or at once for a connection error (nil).
            case closed(reason: APNsReason?)
        }

        private let authenticatedLimit: Int
        private let unauthenticatedLimit: Int
        private let errorBudget: Int
        private let unknownSenderErrorBudget: Int
        private let badDeviceTokenWeight: Int
        private let timeouts: Timeouts
        private var phase = Phase.open
        private var concurrencyRaised = false
        private var errorsCounted = 0
        private var activeStreams = 0
        /// Requests handed on and not yet answered: while one is, the connection is in use.
        private var requestsInProcess = 0
        /// The highest stream id a HEADERS frame opened, well-formed or not: what is above it is a new stream.
        private var highestStreamSeen = HTTP2StreamID.rootStream
        /// The highest stream taken as a request: the GOAWAY's last stream id.
        private var highestStreamOpened = HTTP2StreamID.rootStream

        /// Until the first frame (the client's SETTINGS, after the preface), when the connection is closed.
        private var handshakeDeadline: NIODeadline?
        /// When the connection is unused, unless a request shows its sender first.
        private var unusedDeadline = NIODeadline.distantFuture
        /// Whether a request on the connection has shown its sender (a provider token admitted, a certificate read).
        private var senderKnown = false
        /// When a frame was last read or written.
        private var lastActivity = NIODeadline.uptimeNanoseconds(0)
        /// Since when writes are blocked; nil while the connection can be written.
        private var blockedSince: NIODeadline?
        private var readHeld = false
        /// Answers whose DATA waits for the client's flow-control window, and when that wait last moved (one went
        /// out, or the first began waiting).
        private var answersWaiting = 0
        private var answersMoved = NIODeadline.uptimeNanoseconds(0)

        init(configuration: GatewayConfiguration) {
            authenticatedLimit = configuration.authenticatedMaximumConcurrentStreams
            unauthenticatedLimit = configuration.unauthenticatedMaximumConcurrentStreams
            errorBudget = configuration.connectionErrorBudget
            unknownSenderErrorBudget = configuration.unknownSenderErrorBudget
            badDeviceTokenWeight = configuration.badDeviceTokenErrorWeight
            timeouts = Timeouts(
                handshake: configuration.providerHandshakeTimeout, unused: configuration.unusedConnectionTimeout,
                idle: configuration.idleTimeout, stalled: configuration.stalledConnectionTimeout,
                grace: configuration.shutdownGracePeriod)
        }

        /// The reason requests completing now are refused with; nil while the connection is open.
        var closingReason: APNsReason? {
            switch phase {
            case .open: nil
            case .draining(let reason, _, _, _), .goAwaySent(let reason, _): reason
            case .closed(let reason): reason
            }
        }

        // MARK: The connection

        /// The connection was accepted.
        mutating func connected(now: NIODeadline) {
            lastActivity = now
            handshakeDeadline = now + timeouts.handshake
            unusedDeadline = now + timeouts.unused
        }

        /// A frame was read.
        mutating func frameRead() {
            handshakeDeadline = nil
        }

        /// What was read or written went out or came in: the connection is not idle.
        mutating func active(now: NIODeadline) {
            lastActivity = now
        }

        /// A request on the connection showed its sender: the unused deadline no longer applies.
        mutating func senderShown() {
            senderKnown = true
        }

        /// The channel asks for a read; false while the connection cannot be written (the read is held, and passed on
        /// as ``Action/read`` once it can: a client that sends without reading then waits in its own socket buffer).
        mutating func readRequested() -> Bool {
            guard blockedSince != nil else { return true }
            readHeld = true
            return false
        }

        mutating func writabilityChanged(writable: Bool, now: NIODeadline) -> Action? {
            if writable {
                blockedSince = nil
                guard readHeld else { return nil }
                readHeld = false
                return .read
            }
            if blockedSince == nil { blockedSince = now }
            return nil
        }

        /// An answer's DATA is written; it may wait for the client's flow-control window.
        mutating func answerWaits(now: NIODeadline) {
            if answersWaiting == 0 { answersMoved = now }
            answersWaiting += 1
        }

        /// An answer's DATA went out.
        mutating func answerWentOut(now: NIODeadline) {
            answersWaiting -= 1
            answersMoved = now
        }

        // MARK: Streams

        /// A HEADERS frame on `id`: true when it opens a new stream (false for trailers on an open one).
        mutating func headersReceived(on id: HTTP2StreamID) -> Bool {
            guard id > highestStreamSeen else { return false }
            highestStreamSeen = id
            return true
        }

        /// A well-formed request started on `id`.
        mutating func streamOpened(_ id: HTTP2StreamID) {
            activeStreams += 1
            highestStreamOpened = max(highestStreamOpened, id)
        }

        /// A request was handed on for processing.
        mutating func requestSubmitted() {
            requestsInProcess += 1
        }

        /// A request ended: answered (`wasSubmitted`), reset, or closed by the HTTP/2 layer.
        mutating func streamClosed(_ id: HTTP2StreamID, wasSubmitted: Bool) -> Action? {
            activeStreams -= 1
            if wasSubmitted { requestsInProcess -= 1 }
            switch phase {
            case .draining(let reason, let from, let owed, let deadline) where id <= from:
                guard owed > 1 else { return sendGoAway(reason, deadline: deadline) }
                phase = .draining(reason: reason, from: from, owed: owed - 1, deadline: deadline)
                return nil
            case .goAwaySent(let reason, _) where activeStreams == 0:
                phase = .closed(reason: reason)
                return .close
            default:
                return nil
            }
        }

        /// A request was answered; `rejection` is nil for a 200. Raises the stream limit after the first success,
        /// lowers it after an authentication failure, and starts closing once the error budget is spent (the smaller
        /// ``GatewayConfiguration/unknownSenderErrorBudget`` until a request has shown its sender).
        mutating func answered(_ rejection: Rejection?, now: NIODeadline) -> [Action] {
            guard let rejection else {
                guard !concurrencyRaised else { return [] }
                concurrencyRaised = true
                return [.announce(maximumConcurrentStreams: authenticatedLimit)]
            }
            var actions: [Action] = []
            if rejection.reason.status == 403, concurrencyRaised {
                concurrencyRaised = false
                actions.append(.announce(maximumConcurrentStreams: unauthenticatedLimit))
            }
            guard rejection.reason.countsAsConnectionError, rejection.reason.status < 500 else { return actions }
            errorsCounted += rejection.reason == .badDeviceToken ? badDeviceTokenWeight : 1
            if errorsCounted >= (senderKnown ? errorBudget : unknownSenderErrorBudget) {
                actions += startClosing(rejection.reason, now: now)
            }
            return actions
        }

        // MARK: Closing

        /// Closing begins (idle timeout, error budget, shutdown); the first reason counts. Requests completing from
        /// now on are refused with it; the GOAWAY waits for the answers owed to requests open now, at most the grace
        /// period.
        mutating func startClosing(_ reason: APNsReason, now: NIODeadline) -> [Action] {
            guard phase == .open else { return [] }
            let deadline = now + timeouts.grace
            guard activeStreams > 0 else { return [sendGoAway(reason, deadline: deadline)] }
            phase = .draining(reason: reason, from: highestStreamOpened, owed: activeStreams, deadline: deadline)
            return []
        }

        /// An error of the whole connection (a flood, an oversized frame, bad HPACK). While open it ends the
        /// connection; while closing, requests already handed on keep their answers and the rest are refused.
        mutating func connectionError() -> Action {
            guard closingReason != nil else {
                phase = .closed(reason: nil)
                return .close
            }
            return .refuseUnsubmittedStreams
        }

        private mutating func sendGoAway(_ reason: APNsReason, deadline: NIODeadline) -> Action {
            phase = activeStreams == 0 ? .closed(reason: reason) : .goAwaySent(reason: reason, deadline: deadline)
            return .sendGoAway(lastStreamID: highestStreamOpened, reason: reason, thenClose: activeStreams == 0)
        }

        // MARK: Time

        /// The earliest moment something may fall due: the handler's one timer. It may come early (activity moved a
        /// deadline on meanwhile), never late; nil when nothing can.
        var nextDeadline: NIODeadline? {
            var next: NIODeadline?
            func consider(_ deadline: NIODeadline?) {
                if let deadline, deadline < (next ?? .distantFuture) { next = deadline }
            }
            switch phase {
            case .open:
                consider(handshakeDeadline)
                consider(idleDeadline)
            case .draining(_, _, _, let deadline), .goAwaySent(_, let deadline):
                consider(deadline)
            case .closed:
                return nil
            }
            consider(blockedSince.map { $0 + timeouts.stalled })
            if answersWaiting > 0 { consider(answersMoved + timeouts.stalled) }
            return next
        }

        /// When the connection is idle if nothing more happens: `idle` after its last activity, and until a request
        /// shows its sender, at the unused deadline at the latest.
        private var idleDeadline: NIODeadline {
            let idle = lastActivity + timeouts.idle
            return senderKnown ? idle : min(idle, unusedDeadline)
        }

        /// The handler's timer fired: what has fallen due by `now`.
        mutating func timerFired(now: NIODeadline) -> [Action] {
            if case .closed = phase { return [] }
            if let deadline = handshakeDeadline, now >= deadline {
                phase = .closed(reason: nil)
                return [.count(reason: "handshake_timeout"), .close]
            }
            let blocked = blockedSince.map { now >= $0 + timeouts.stalled } ?? false
            if blocked || (answersWaiting > 0 && now >= answersMoved + timeouts.stalled) {
                phase = .closed(reason: nil)
                return [.count(reason: "stalled"), .close]
            }
            switch phase {
            case .open:
                if !senderKnown, now >= unusedDeadline, requestsInProcess > 0 {
                    unusedDeadline = now + timeouts.unused  // its first request is being processed: not unused
                }
                guard now >= idleDeadline else { return [] }
                return (senderKnown ? [] : [.count(reason: "unused")]) + startClosing(.idleTimeout, now: now)
            case .draining(let reason, _, _, let deadline) where now >= deadline:
                phase = .closed(reason: reason)
                return [.sendGoAway(lastStreamID: highestStreamOpened, reason: reason, thenClose: false), .close]
            case .goAwaySent(let reason, let deadline) where now >= deadline:
                phase = .closed(reason: reason)
                return [.close]
            default:
                return []
            }
        }
    }
}
