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
    private struct State {
        var answer: (reason: String?, at: ContinuousClock.Instant)?
        var probing: Task<String?, Never>?
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
        enum Next {
            case answered(String?)
            case wait(Task<String?, Never>)
        }
        let next: Next = state.withLock { state in
            if let answer = state.answer, ContinuousClock.now - answer.at < Self.answerStands { return .answered(answer.reason) }
            if let probing = state.probing { return .wait(probing) }
            let probing = Task { await self.probe() }
            state.probing = probing
            return .wait(probing)
        }
        switch next {
        case .answered(let reason):
            return reason
        case .wait(let probing):
            let reason = await probing.value
            state.withLock { state in
                guard state.probing == probing else { return }
                state.probing = nil
                state.answer = (reason, ContinuousClock.now)
            }
            return reason
        }
    }

    /// Connects and closes again; the connection's login is bounded too (a server that takes the TCP connection and
    /// then says nothing).
    private func probe() async -> String? {
        let outcome: DeadlineOutcome<String?>
        do {
            outcome = try await withDeadline(Self.probeTimeout * 2, onTimeout: {}) { [configuration, logger] in
                do {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                    try? await connection.close()
                    return nil
                } catch {
                    return StoreError.reason(error)
                }
            }
        } catch {
            return "the probe was cancelled"
        }
        switch outcome {
        case .finished(let reason): return reason
        case .timedOut: return "no answer to a new connection within \(Self.probeTimeout * 2)"
        }
    }
}
