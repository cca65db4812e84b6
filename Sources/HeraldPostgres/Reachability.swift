import HeraldStore
import Logging
import PostgresNIO
import Synchronization

/// Whether PostgreSQL takes connections now, found by making one outside the pool (a probe): for calls that got no
/// connection in time, to say why, and to fail at once while the server refuses connections rather than at their
/// deadline.
///
/// One probe runs at a time and its answer stands for a second, so a node whose calls all wait makes at most one
/// connection attempt a second for them.
final class Reachability: Sendable {
    /// What a probe found.
    enum Answer: Sendable, Equatable {
        case reachable
        /// The server said no, or nothing is there to say yes: refused, no route, a failed name lookup, a refused login.
        case refused(String)
        /// No answer within the probe's timeout: a server gone silent, or one (or a machine) too loaded to answer
        /// quickly. Not reason enough to give up a call that has time left.
        case silent(String)

        /// Why the server cannot be reached, or nil when it can.
        var reason: String? {
            switch self {
            case .reachable: nil
            case .refused(let reason), .silent(let reason): reason
            }
        }
    }

    private struct State {
        var answer: (answer: Answer, at: ContinuousClock.Instant)?
        var probing: Task<Answer, Never>?
    }

    private let state = Mutex(State())
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private static let answerStands = Duration.seconds(1)
    private static let probeTimeout = Duration.seconds(1)

    /// - Parameter configuration: How to connect; its connect timeout becomes a second.
    init(configuration: PostgresConnection.Configuration, logger: Logger) {
        var probe = configuration
        probe.options.connectTimeout = .init(Self.probeTimeout)
        self.configuration = probe
        self.logger = logger
    }

    /// Nil when the server took a connection (in the last second); else why it did not, in words.
    func unreachableReason() async -> String? {
        await answer().reason
    }

    /// What the last probe (in the last second) or a new one found.
    func answer() async -> Answer {
        enum Next {
            case answered(Answer)
            case wait(Task<Answer, Never>)
        }
        let next: Next = state.withLock { state in
            if let answer = state.answer, ContinuousClock.now - answer.at < Self.answerStands { return .answered(answer.answer) }
            if let probing = state.probing { return .wait(probing) }
            let probing = Task { await self.probe() }
            state.probing = probing
            return .wait(probing)
        }
        switch next {
        case .answered(let answer):
            return answer
        case .wait(let probing):
            let answer = await probing.value
            state.withLock { state in
                guard state.probing == probing else { return }
                state.probing = nil
                state.answer = (answer, ContinuousClock.now)
            }
            return answer
        }
    }

    /// Connects and closes again; the connection's login is bounded too (a server that takes the TCP connection and
    /// then says nothing).
    private func probe() async -> Answer {
        let outcome: DeadlineOutcome<Answer>
        do {
            outcome = try await withDeadline(Self.probeTimeout * 2, onTimeout: {}) { [configuration, logger] in
                do {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                    try? await connection.close()
                    return .reachable
                } catch {
                    let reason = StoreError.reason(error)
                    return StoreError.isTimeout(error) ? .silent(reason) : .refused(reason)
                }
            }
        } catch {
            return .silent("the probe was cancelled")
        }
        switch outcome {
        case .finished(let answer): return answer
        case .timedOut: return .silent("no answer to a new connection within \(Self.probeTimeout * 2)")
        }
    }
}
