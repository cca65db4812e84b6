import HeraldWire
import NIOHTTP2

extension ProviderConnection {
    /// The rules of one provider connection, without I/O: the stream limit (1 until a request succeeds, then
    /// more; back to 1 after a 403), the error budget, and closing — idle timeout, spent budget or shutdown — with
    /// the GOAWAY held back until every request open when closing began has its answer.
    ///
    /// ``ProviderConnection`` feeds it what happens and carries out the actions it returns; the stream bookkeeping
    /// of requests themselves (headers, bodies) is ``ProviderConnectionHandler``'s.
    struct StateMachine {
        /// What the connection must do next.
        enum Action: Equatable {
            /// Send SETTINGS with this SETTINGS_MAX_CONCURRENT_STREAMS.
            case announce(maximumConcurrentStreams: Int)
            /// Start the grace period: when it ends, report ``gracePeriodEnded()``.
            case startGracePeriod
            /// Send GOAWAY naming `lastStreamID` and `{"reason": …}`; `thenClose` when nothing is left to answer.
            case sendGoAway(lastStreamID: HTTP2StreamID, reason: APNsReason, thenClose: Bool)
            /// Flush what is written and close the connection.
            case close
            /// Reset the requests not yet handed on with REFUSED_STREAM (never processed, safe to retry).
            case refuseUnsubmittedStreams
        }

        private enum Phase: Equatable {
            case open
            /// Closing began for `reason`; `owed` requests, all opened at or before `from`, still await their answer.
            case draining(reason: APNsReason, from: HTTP2StreamID, owed: Int)
            /// The GOAWAY is out; the connection closes when the rest are answered.
            case goAwaySent(reason: APNsReason)
            /// Closed, after closing for `reason` or at once for a connection error (nil).
            case closed(reason: APNsReason?)
        }

        private let authenticatedLimit: Int
        private let unauthenticatedLimit: Int
        private let errorBudget: Int
        private let unknownSenderErrorBudget: Int
        private let badDeviceTokenWeight: Int
        private var phase = Phase.open
        private var concurrencyRaised = false
        private var errorsCounted = 0
        private var activeStreams = 0
        /// The highest stream id a HEADERS frame opened, well-formed or not: what is above it is a new stream.
        private var highestStreamSeen = HTTP2StreamID.rootStream
        /// The highest stream taken as a request: the GOAWAY's last stream id.
        private var highestStreamOpened = HTTP2StreamID.rootStream

        init(configuration: GatewayConfiguration) {
            authenticatedLimit = configuration.authenticatedMaximumConcurrentStreams
            unauthenticatedLimit = configuration.unauthenticatedMaximumConcurrentStreams
            errorBudget = configuration.connectionErrorBudget
            unknownSenderErrorBudget = configuration.unknownSenderErrorBudget
            badDeviceTokenWeight = configuration.badDeviceTokenErrorWeight
        }

        /// The reason requests completing now are refused with; nil while the connection is open.
        var closingReason: APNsReason? {
            switch phase {
            case .open: nil
            case .draining(let reason, _, _), .goAwaySent(let reason): reason
            case .closed(let reason): reason
            }
        }

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

        /// A request ended: answered, reset, or closed by the HTTP/2 layer.
        mutating func streamClosed(_ id: HTTP2StreamID) -> Action? {
            activeStreams -= 1
            switch phase {
            case .draining(let reason, let from, let owed) where id <= from:
                guard owed > 1 else { return sendGoAway(reason) }
                phase = .draining(reason: reason, from: from, owed: owed - 1)
                return nil
            case .goAwaySent(let reason) where activeStreams == 0:
                phase = .closed(reason: reason)
                return .close
            default:
                return nil
            }
        }

        /// A request was answered; `rejection` is nil for a 200. Raises the stream limit after the first success,
        /// lowers it after an authentication failure, and starts closing once the error budget is spent.
        ///
        /// - Parameter senderKnown: Whether a request on the connection has shown its sender; until one has, the
        ///   smaller ``GatewayConfiguration/unknownSenderErrorBudget`` applies.
        mutating func answered(_ rejection: Rejection?, senderKnown: Bool = true) -> [Action] {
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
            if errorsCounted >= (senderKnown ? errorBudget : unknownSenderErrorBudget) { actions += startClosing(rejection.reason) }
            return actions
        }

        /// Closing begins (idle timeout, error budget, shutdown); the first reason counts. Requests completing from
        /// now on are refused with it; the GOAWAY waits for the answers owed to requests open now, at most the grace
        /// period.
        mutating func startClosing(_ reason: APNsReason) -> [Action] {
            guard phase == .open else { return [] }
            guard activeStreams > 0 else { return [sendGoAway(reason)] }
            phase = .draining(reason: reason, from: highestStreamOpened, owed: activeStreams)
            return [.startGracePeriod]
        }

        /// The grace period is over: whatever is still owed, the GOAWAY goes and the connection closes.
        mutating func gracePeriodEnded() -> [Action] {
            switch phase {
            case .draining(let reason, _, _):
                phase = .closed(reason: reason)
                return [.sendGoAway(lastStreamID: highestStreamOpened, reason: reason, thenClose: false), .close]
            case .goAwaySent(let reason):
                phase = .closed(reason: reason)
                return [.close]
            case .open, .closed:
                return []
            }
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

        private mutating func sendGoAway(_ reason: APNsReason) -> Action {
            phase = activeStreams == 0 ? .closed(reason: reason) : .goAwaySent(reason: reason)
            return .sendGoAway(lastStreamID: highestStreamOpened, reason: reason, thenClose: activeStreams == 0)
        }
    }
}
