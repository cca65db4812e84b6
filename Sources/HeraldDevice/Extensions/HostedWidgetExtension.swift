package import Foundation
import Synchronization
package import UserNotifications
package import UserNotificationsUI

/// A widget extension drawing an app's Live Activities: one process, started for the first activity it draws and kept
/// while the app shows activities; each activity sent to it (a line, again on every change) is answered with its view
/// or with why it does not draw it. An answer that does not come within the budget, or an end, fails that drawing;
/// a drawing that timed out kills the process, so the next one starts afresh (docs/live-activities.md).
package final class HostedWidgetExtension: Sendable {
    private struct Waiter {
        var number: Int
        var activityID: String
        var continuation: CheckedContinuation<WidgetExtensionWire.Output?, Never>
    }

    private struct State {
        var waiters: [Waiter] = []
        var nextNumber = 0
        var drewOnce = false
        /// Its messages ended, it was closed, or a drawing timed out: it draws no more.
        var finished = false
        /// A drawing timed out.
        var expired = false
    }

    private let piped: PipedExtensionProcess<WidgetExtensionWire.Output>
    private let state = Mutex(State())

    private init(piped: PipedExtensionProcess<WidgetExtensionWire.Output>) {
        self.piped = piped
    }

    /// Starts `executable`; its first drawing may take `startBudget` (process start included).
    /// - Throws: ``ExtensionFailure`` when it cannot be started.
    package static func start(
        executable: URL, environment: [String: String], directory: URL, outputLimit: Int = 4 << 20
    ) throws(ExtensionFailure) -> HostedWidgetExtension {
        let piped = try PipedExtensionProcess<WidgetExtensionWire.Output>.start(
            "the widget extension", executable: executable, environment: environment,
            descriptorVariable: WidgetExtensionWire.outputDescriptorVariable, directory: directory, outputLimit: outputLimit)
        let hosted = HostedWidgetExtension(piped: piped)
        Task {
            for await output in piped.outputs { hosted.answered(output) }
            hosted.finish()
        }
        return hosted
    }

    /// It draws no more: its messages ended, or a drawing timed out and it was killed.
    package var isFinished: Bool { state.withLock { $0.finished } }

    /// What it printed so far.
    package var log: String { piped.process.log }

    /// Sends `activity` and waits for the extension's answer: `startBudget` for its first, `drawBudget` for later ones.
    /// - Throws: ``ExtensionFailure`` when it has ended, ends, or does not answer within the budget (it is then killed).
    package func draw(
        _ activity: ActivityRecord, startBudget: Duration, drawBudget: Duration
    ) async throws(ExtensionFailure) -> WidgetExtensionWire.Output {
        let (number, budget) = state.withLock { state in
            defer { state.nextNumber += 1 }
            return (state.nextNumber, state.drewOnce ? drawBudget : startBudget)
        }
        // The waiter is in place before the line goes out: a quick answer finds it.
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<WidgetExtensionWire.Output?, Never>) in
            let waiting = state.withLock { state in
                guard !state.finished else { return false }
                state.waiters.append(Waiter(number: number, activityID: activity.id, continuation: continuation))
                return true
            }
            guard waiting else { return continuation.resume(returning: nil) }
            guard piped.send(activity) else { return giveUp(number) }
            Task {
                try? await Task.sleep(for: budget)
                timedOut(number)
            }
        }
        if let answer {
            state.withLock { $0.drewOnce = true }
            return answer
        }
        let reason: String
        if state.withLock({ $0.expired }) {
            await piped.end(killingAtOnce: true)
            reason = "the widget extension drew nothing for activity \(activity.id) within \(budget)"
        } else {
            _ = await piped.process.ended.wait(until: .now + .seconds(1))
            reason =
                "the widget extension \(piped.process.termination.map { "\($0)" } ?? "closed its messages") before it drew activity \(activity.id)"
        }
        throw ExtensionFailure(reason: reason, log: piped.process.log)
    }

    /// Closes its input (its app shows no more activities), gives it `grace` to end, then kills its process group.
    package func close(grace: Duration = .seconds(1)) async {
        finish()
        await piped.close(grace: grace)
    }

    private func answered(_ output: WidgetExtensionWire.Output) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.activityID == output.id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: output)
    }

    /// A drawing's budget passed: it fails, and the extension draws no more.
    private func timedOut(_ number: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.number == number }) else { return nil }
            state.finished = true
            state.expired = true
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: nil)
    }

    /// The drawing could not be sent (the extension has gone): it fails; its end says why.
    private func giveUp(_ number: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.number == number }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: nil)
    }

    /// It draws no more: every waiting drawing fails.
    private func finish() {
        let waiters = state.withLock { state -> [Waiter] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
    }
}
