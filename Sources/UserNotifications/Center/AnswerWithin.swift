import Synchronization

/// Runs `operation` in a task of its own and returns its result, or nil when `timeout` passes first.
///
/// The operation is not cancelled when the time is up: app code that never returns (a delegate that never
/// calls its completion handler) stays suspended, and its caller moves on.
func answer<Value: Sendable>(within timeout: Duration, _ operation: @escaping @Sendable () async -> Value) async -> Value? {
    await withCheckedContinuation { continuation in
        let waiting = FirstAnswer(continuation)
        let timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return }
            waiting.resume(returning: nil)
        }
        Task {
            let value = await operation()
            timer.cancel()
            waiting.resume(returning: value)
        }
    }
}

/// A continuation resumed by whichever answer comes first.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value?, Never>?>

    init(_ continuation: CheckedContinuation<Value?, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(returning value: Value?) {
        let first = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        first?.resume(returning: value)
    }
}
