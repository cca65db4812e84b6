public import HeraldStore
import Synchronization

/// What a commit notice stream (``ClusterStore/commitNotices()``) has yielded so far, read by a task of its own, for
/// tests to wait on.
///
/// ```swift
/// let log = CommitNoticeLog(store.commitNotices())
/// #expect(await log.first(1) == [.resynchronize])
/// ```
public final class CommitNoticeLog: Sendable {
    private struct State {
        var heard: [CommitNotice] = []
        var finished = false
    }

    private let state = Mutex(State())
    private let reader = Mutex<Task<Void, Never>?>(nil)

    public init(_ stream: AsyncStream<CommitNotice>) {
        let task = Task {
            for await notice in stream { self.state.withLock { $0.heard.append(notice) } }
            self.state.withLock { $0.finished = true }
        }
        reader.withLock { $0 = task }
    }

    /// Everything heard so far.
    public var heard: [CommitNotice] { state.withLock { $0.heard } }

    /// Whether the stream has ended.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// The first `count` notices, once there are that many or after `timeout` (then fewer).
    public func first(_ count: Int, timeout: Duration = .seconds(10)) async -> [CommitNotice] {
        await wait(timeout: timeout) { $0.heard.count >= count }
        return Array(heard.prefix(count))
    }

    /// Waits until the stream has ended, at most `timeout`; whether it has.
    public func finished(timeout: Duration = .seconds(10)) async -> Bool {
        await wait(timeout: timeout) { $0.finished }
        return isFinished
    }

    private func wait(timeout: Duration, until condition: (State) -> Bool) async {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, !state.withLock({ condition($0) }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops reading, which ends the stream.
    public func stop() {
        reader.withLock { $0?.cancel() }
    }
}
