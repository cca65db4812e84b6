import Foundation
import Synchronization
import UserNotifications

/// Apps' `registerForRemoteNotifications()` calls waiting for the gateway, each on its own: the gateway's token
/// for an app ends every call waiting for that app, a refusal ends the calls of the app it names, and a request
/// that cannot be sent or gets no answer in time ends only the call that made it.
final class RegistrationWaiters: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Result<String, UNError>, Never>
        /// Sends the request, then times the call out; cancelled once the call is answered.
        var timer: Task<Void, Never>?
    }

    private let waiting = Mutex<[String: [UUID: Waiter]]>([:])

    /// Calls waiting now, of every app.
    var count: Int { waiting.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Asks with `send`, then waits for ``finish(_:with:)`` of `bundleID`, at most `timeout`.
    func wait(
        for bundleID: String, timeout: Duration, send: @escaping @Sendable () async throws -> Void
    ) async -> Result<String, UNError> {
        let id = UUID()
        return await withCheckedContinuation { continuation in
            waiting.withLock { $0[bundleID, default: [:]][id] = Waiter(continuation: continuation) }
            let timer = Task {
                do {
                    try await send()
                } catch {
                    let reason = "the device daemon could not ask the gateway to register \(bundleID): \(error)"
                    return self.end(id, of: bundleID, with: .failure(UNError(.notificationsNotAllowed, reason)))
                }
                guard (try? await Task.sleep(for: timeout)) != nil else { return }  // answered meanwhile
                let reason = "the gateway did not register \(bundleID) within \(timeout)"
                self.end(id, of: bundleID, with: .failure(UNError(.notificationsNotAllowed, reason)))
            }
            let answered = waiting.withLock { waiting in
                guard waiting[bundleID]?[id] != nil else { return true }
                waiting[bundleID]?[id]?.timer = timer
                return false
            }
            if answered { timer.cancel() }
        }
    }

    /// Whether a call waits for `bundleID` now.
    func isWaiting(for bundleID: String) -> Bool {
        waiting.withLock { $0[bundleID]?.isEmpty == false }
    }

    /// Ends every call waiting for `bundleID`.
    func finish(_ bundleID: String, with result: Result<String, UNError>) {
        let ended = waiting.withLock { $0.removeValue(forKey: bundleID) ?? [:] }
        for waiter in ended.values {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: result)
        }
    }

    /// Ends the calls waiting for `topic`, or every call when the refusal names none (a gateway before topics were
    /// named in refusals).
    func refuse(topic: String?, with error: UNError) {
        let bundleIDs = topic.map { [$0] } ?? waiting.withLock { Array($0.keys) }
        for bundleID in bundleIDs { finish(bundleID, with: .failure(error)) }
    }

    private func end(_ id: UUID, of bundleID: String, with result: Result<String, UNError>) {
        let waiter = waiting.withLock { waiting -> Waiter? in
            let waiter = waiting[bundleID]?.removeValue(forKey: id)
            if waiting[bundleID]?.isEmpty == true { waiting[bundleID] = nil }
            return waiter
        }
        waiter?.continuation.resume(returning: result)
    }
}
