import Synchronization

/// What became of work run with a deadline.
enum DeadlineOutcome<Value: Sendable>: Sendable {
    case finished(Value)
    case timedOut
}

/// Runs `work` in a task of its own and waits for it at most `timeout`. Past it, `onTimeout` runs, the work's task
/// is cancelled, and this returns ``DeadlineOutcome/timedOut`` at once, while the work ends in its own time.
/// `giveUpEarly`, run beside the work, may end the wait sooner: when it returns true, this returns
/// ``DeadlineOutcome/timedOut`` at once (without `onTimeout`), and the work is cancelled.
///
/// Unlike a task group, this does not wait for work that cannot be cancelled (a query on a connection, a lease from
/// PostgresNIO's pool that missed its cancellation): the caller's deadline holds whatever the work does. Cancelling
/// the caller cancels the work and returns at once.
func withDeadline<Value: Sendable>(
    _ timeout: Duration, onTimeout: @escaping @Sendable () async -> Void, giveUpEarly: (@Sendable () async -> Bool)? = nil,
    _ work: @escaping @Sendable () async throws -> Value
) async throws -> DeadlineOutcome<Value> {
    let race = DeadlineRace<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.wait(continuation)
            let worker = Task {
                do {
                    race.finish(.success(.finished(try await work())))
                } catch {
                    race.finish(.failure(error))
                }
            }
            let timer = Task {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return  // the work finished first, or the caller was cancelled
                }
                await onTimeout()
                worker.cancel()
                race.finish(.success(.timedOut))
            }
            var tasks = [worker, timer]
            if let giveUpEarly {
                tasks.append(Task { if await giveUpEarly() { race.finish(.success(.timedOut)) } })
            }
            race.started(tasks)
        }
    } onCancel: {
        race.cancel()
    }
}

/// The first of the work and the deadline to finish resumes the caller; the other is cancelled.
private final class DeadlineRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<DeadlineOutcome<Value>, any Error>?
        var tasks: [Task<Void, Never>] = []
        var cancelled = false
    }

    private let state = Mutex(State())

    func wait(_ continuation: CheckedContinuation<DeadlineOutcome<Value>, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func started(_ tasks: [Task<Void, Never>]) {
        let cancelled = state.withLock { state in
            state.tasks = tasks
            return state.cancelled || state.continuation == nil
        }
        if cancelled { tasks.forEach { $0.cancel() } }
    }

    func finish(_ result: Result<DeadlineOutcome<Value>, any Error>) {
        let (continuation, tasks) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.tasks)
        }
        guard let continuation else { return }
        tasks.forEach { $0.cancel() }
        continuation.resume(with: result)
    }

    /// The caller was cancelled: it returns at once, and the work is cancelled.
    func cancel() {
        state.withLock { $0.cancelled = true }
        finish(.failure(CancellationError()))
    }
}
