import Synchronization

/// A value a test waits on: each change wakes the waiters whose condition now holds, so a test waits for the event
/// itself instead of polling or sleeping.
///
/// ```swift
/// let seen = Watched<[String]>([])
/// center.onPresent = { seen.update { $0.append($0.identifier) } }
/// #expect(await seen.wait { $0.count == 2 })
/// ```
public final class Watched<Value: Sendable>: Sendable {
    private struct Waiter: Sendable {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
        var deadline: Task<Void, Never>?
    }

    private struct State: Sendable {
        var value: Value
        var waiters: [Int: Waiter] = [:]
        var lastWaiterID = 0
    }

    private let state: Mutex<State>

    public init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The value now.
    public var value: Value { state.withLock { $0.value } }

    /// Changes the value and wakes whoever waits for what it has become.
    @discardableResult
    public func update<Result>(_ change: (inout Value) -> Result) -> Result {
        changing { change(&$0.value) }
    }

    private func changing<Result>(_ change: (inout State) -> Result) -> Result {
        let (result, woken) = state.withLock { state in
            let result = change(&state)
            let met = state.waiters.filter { $0.value.condition(state.value) }
            for id in met.keys { state.waiters[id] = nil }
            return (result, Array(met.values))
        }
        for waiter in woken {
            waiter.deadline?.cancel()
            waiter.continuation.resume(returning: true)
        }
        return result
    }

    /// Waits until `condition` holds for the value, at most `timeout`; whether it holds.
    @discardableResult
    public func wait(timeout: Duration = .seconds(10), until condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let id: Int? = state.withLock { state in
                if condition(state.value) { return nil }
                state.lastWaiterID += 1
                state.waiters[state.lastWaiterID] = Waiter(condition: condition, continuation: continuation)
                return state.lastWaiterID
            }
            guard let id else { return continuation.resume(returning: true) }
            let deadline = Task {
                try? await Task.sleep(for: timeout)
                self.giveUp(waiter: id)
            }
            let stillWaiting = state.withLock { state in
                state.waiters[id]?.deadline = deadline
                return state.waiters[id] != nil
            }
            if !stillWaiting { deadline.cancel() }
        }
    }

    /// Changes the value once `condition` holds, at most `timeout`; what `change` returned, or nil after the timeout.
    public func take<Result>(
        timeout: Duration = .seconds(10), when condition: @escaping @Sendable (Value) -> Bool, _ change: (inout Value) -> Result
    ) async -> Result? {
        while await wait(timeout: timeout, until: condition) {
            // Another taker may have come first: then wait again.
            let taken: Result? = changing { state in condition(state.value) ? change(&state.value) : nil }
            if let taken { return taken }
        }
        return nil
    }

    private func giveUp(waiter id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
    }
}
