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
    private struct State: Sendable {
        var heard: [CommitNotice] = []
        var finished = false
    }

    private let state = Watched(State())
    private let reader = Mutex<Task<Void, Never>?>(nil)

    public init(_ stream: AsyncStream<CommitNotice>) {
        let task = Task {
            for await notice in stream { self.state.update { $0.heard.append(notice) } }
            self.state.update { $0.finished = true }
        }
        reader.withLock { $0 = task }
    }

    /// Everything heard so far.
    public var heard: [CommitNotice] { state.value.heard }

    /// Whether the stream has ended.
    public var isFinished: Bool { state.value.finished }

    /// The first `count` notices, once there are that many or after `timeout` (then fewer).
    public func first(_ count: Int, timeout: Duration = .seconds(10)) async -> [CommitNotice] {
        await state.wait(timeout: timeout) { $0.heard.count >= count }
        return Array(heard.prefix(count))
    }

    /// Waits until what was heard meets `condition`, at most `timeout`; whether it does.
    @discardableResult
    public func wait(timeout: Duration = .seconds(10), until condition: @escaping @Sendable ([CommitNotice]) -> Bool) async -> Bool {
        await state.wait(timeout: timeout) { condition($0.heard) }
    }

    /// Waits until the stream has ended, at most `timeout`; whether it has.
    public func finished(timeout: Duration = .seconds(10)) async -> Bool {
        await state.wait(timeout: timeout) { $0.finished }
    }

    /// Stops reading, which ends the stream.
    public func stop() {
        reader.withLock { $0?.cancel() }
    }
}
