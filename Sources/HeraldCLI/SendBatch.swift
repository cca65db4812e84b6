import Foundation
import HeraldClient
import HeraldWire
import Synchronization

/// Many notifications at once: at most `concurrency` in flight, a progress bar on standard error, and a
/// table of outcomes by reason at the end. A failure is one row of the table, never the end of the batch.
struct SendBatch {
    var request: SendRequest
    var total: Int
    var concurrency: Int

    /// How one notification ended.
    enum Outcome: Hashable, Comparable {
        case accepted
        case rejected(status: Int, reason: String)
        case failed(code: String)

        var label: String {
            switch self {
            case .accepted: "200 accepted"
            case .rejected(let status, let reason): "\(status) \(reason)"
            case .failed(let code): "error \(code)"
            }
        }
    }

    /// What one worker saw.
    private struct Report: Sendable {
        var tally: [Outcome: Int] = [:]
        var failures: [Failure] = []
    }

    private struct Failure: Sendable {
        var index: Int
        var outcome: Outcome
        var detail: String
    }

    /// Counters the workers share with the progress bar.
    private final class Counters: Sendable {
        let next = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
    }

    /// Sends them all; true when every one was accepted.
    ///
    /// `concurrency` workers each send one notification after another (no task per notification, and no
    /// single task that every answer must pass through), spread over the client's event loops; a separate
    /// task draws the progress bar.
    func run(_ client: APNsClient) async -> Bool {
        let started = ContinuousClock.now
        let counters = Counters()
        let notification = request.notification
        let devices = request.devices
        let total = self.total
        let progress = Task {
            var bar = ProgressBar(total: total)
            while !Task.isCancelled {
                bar.update(done: counters.done.load(ordering: .relaxed), failed: counters.failed.load(ordering: .relaxed))
                try? await Task.sleep(for: .milliseconds(100))
            }
            bar.update(done: counters.done.load(ordering: .relaxed), failed: counters.failed.load(ordering: .relaxed), force: true)
            bar.finish()
        }
        // Workers run on the event loops the connections will be opened on (one connection per loop first), so a
        // request and its answer stay on one thread.
        let executors = client.taskExecutors.prefix(max(1, client.configuration.maximumConnections))
        let report = await withTaskGroup(of: Report.self) { group in
            for worker in 0..<min(concurrency, total) {
                let executor = executors.isEmpty ? nil : executors[executors.startIndex + worker % executors.count]
                group.addTask(executorPreference: executor) {
                    var report = Report()
                    var accepted = 0  // counted apart: the common case costs no hashing
                    while true {
                        let index = counters.next.add(1, ordering: .relaxed).oldValue
                        guard index < total else {
                            if accepted > 0 { report.tally[.accepted, default: 0] += accepted }
                            return report
                        }
                        let (outcome, detail) = await Self.send(notification, to: devices[index % devices.count], client: client)
                        if outcome == .accepted {
                            accepted += 1
                        } else {
                            report.tally[outcome, default: 0] += 1
                            report.failures.append(Failure(index: index, outcome: outcome, detail: detail))
                            counters.failed.add(1, ordering: .relaxed)
                        }
                        counters.done.add(1, ordering: .relaxed)
                    }
                }
            }
            return await group.reduce(into: Report()) { all, report in
                all.tally.merge(report.tally, uniquingKeysWith: +)
                all.failures += report.failures
            }
        }
        let elapsed = ContinuousClock.now - started
        progress.cancel()
        await progress.value
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        printSummary(tally: report.tally, failures: report.failures.map { ($0.index, $0.outcome, $0.detail) }, seconds: seconds)
        return report.failures.isEmpty
    }

    private static func send(_ notification: APNsNotification, to device: DeviceToken, client: APNsClient) async -> (Outcome, String) {
        do {
            try await client.send(notification, to: device)
            return (.accepted, "")
        } catch {
            if error.code == .rejected {
                return (
                    .rejected(status: error.status ?? 0, reason: error.reason?.rawValue ?? "-"),
                    error.apnsID.map { "apns-id \(APNsID.format($0))" } ?? ""
                )
            }
            return (.failed(code: error.code.description), error.message)
        }
    }

    private func printSummary(tally: [Outcome: Int], failures: [(index: Int, outcome: Outcome, detail: String)], seconds: Double) {
        let rate = seconds > 0 ? Double(total) / seconds : 0
        print(
            "sent \(total) notification\(total == 1 ? "" : "s") to \(request.devices.count) device\(request.devices.count == 1 ? "" : "s") in \(String(format: "%.2f", seconds)) s (\(Int(rate.rounded()))/s)"
        )
        let rows = tally.sorted { $0.key < $1.key }
        let width = max(7, rows.map(\.key.label.count).max() ?? 0)
        print("outcome".padding(toLength: width, withPad: " ", startingAt: 0) + "  count")
        for (outcome, count) in rows {
            print(outcome.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + String(count))
        }
        guard !failures.isEmpty else { return }
        print("failed:")
        let sorted = failures.sorted { $0.index < $1.index }
        for failure in sorted.prefix(20) {
            let device = request.devices[failure.index % request.devices.count]
            let source = request.deviceSources[failure.index % request.deviceSources.count]
            print(
                "  #\(failure.index + 1) \(device.redacted) (\(source)): \(failure.outcome.label)"
                    + (failure.detail.isEmpty ? "" : " — \(failure.detail)"))
        }
        if sorted.count > 20 { print("  … and \(sorted.count - 20) more") }
    }
}

/// A progress bar on standard error: one line redrawn ten times a second on a terminal, a line a second
/// into a file or pipe, and the final count at the end.
struct ProgressBar {
    let total: Int
    private var done = 0
    private var failed = 0
    private var lastDrawn = ContinuousClock.now
    private let terminal = isatty(STDERR_FILENO) == 1

    init(total: Int) {
        self.total = total
    }

    mutating func update(done: Int, failed: Int, force: Bool = false) {
        self.done = done
        self.failed = failed
        let now = ContinuousClock.now
        if force || now - lastDrawn >= (terminal ? .milliseconds(100) : .seconds(1)) {
            lastDrawn = now
            draw()
        }
    }

    private func draw() {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "\(bar) \(done)/\(total)" + (failed > 0 ? " (\(failed) failed)" : "")
        FileHandle.standardError.write(Data((terminal ? "\r" + line : line + "\n").utf8))
    }

    func finish() {
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
