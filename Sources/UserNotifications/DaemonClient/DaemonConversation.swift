import Foundation
package import NIOCore
import Synchronization

/// One end of a daemon socket connection: writes messages, and matches each incoming `result`, `failure`
/// or `answer` to the `call` or `ask` it answers. Both the daemon and apps use it.
package final class DaemonConversation: Sendable {
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let state = Mutex(State())

    private struct State {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<DaemonMessage?, Never>] = [:]
        var closed = false
    }

    package init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.outbound = outbound
    }

    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Sends a message; false when the connection is gone.
    @discardableResult
    package func send(_ message: DaemonMessage) async -> Bool {
        guard let line = try? message.encodedLine() else { return false }
        do {
            try await outbound.write(ByteBuffer(bytes: line))
            return true
        } catch {
            close()
            return false
        }
    }

    /// Sends the message `make` builds with a fresh id and waits for its reply: nil when the connection closed
    /// or `timeout` passed first.
    package func request(timeout: Duration? = nil, _ make: (Int) -> DaemonMessage) async -> DaemonMessage? {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let message = make(id)
        let timer = timeout.map { timeout in
            Task { [weak self] in
                try await Task.sleep(for: timeout)
                self?.resume(id, with: nil)
            }
        }
        defer { timer?.cancel() }
        return await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                guard !state.closed else { return false }
                state.waiting[id] = continuation
                return true
            }
            guard open else { return continuation.resume(returning: nil) }
            Task {
                if !(await send(message)) { resume(id, with: nil) }
            }
        }
    }

    /// Hands a reply to whoever waits for it; false when `message` is not a reply.
    package func deliver(_ message: DaemonMessage) -> Bool {
        switch message {
        case .result(let id, _), .failure(let id, _, _, _, _), .answer(let id, _):
            resume(id, with: message)
            return true
        case .call, .ask:
            return false
        }
    }

    /// Ends every wait with nil; later requests return nil at once.
    package func close() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return state.waiting
        }
        for continuation in waiting.values { continuation.resume(returning: nil) }
        outbound.finish()
    }

    private func resume(_ id: Int, with message: DaemonMessage?) {
        state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(returning: message)
    }
}
