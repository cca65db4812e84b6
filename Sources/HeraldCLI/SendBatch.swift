import Foundation
import HeraldClient
import HeraldWire

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

    /// Sends them all; true when every one was accepted.
    func run(_ client: APNsClient) async -> Bool {
        let started = ContinuousClock.now
        var progress = ProgressBar(total: total)
        var tally: [Outcome: Int] = [:]
        var failures: [(index: Int, outcome: Outcome, detail: String)] = []
        let notification = request.notification
        let devices = request.devices
        await withTaskGroup(of: (Int, Outcome, String).self) { group in
            var next = 0
            func addTask() {
                let index = next
                next += 1
                group.addTask {
                    do throws(APNsClientError) {
                        try await client.send(notification, to: devices[index % devices.count])
                        return (index, .accepted, "")
                    } catch {
                        if error.code == .rejected {
                            return (index, .rejected(status: error.status ?? 0, reason: error.reason?.rawValue ?? "-"), error.apnsID.map { "apns-id \(APNsID.format($0))" } ?? "")
                        }
                        return (index, .failed(code: error.code.description), error.message)
                    }
                }
            }
            while next < min(concurrency, total) { addTask() }
            for await (index, outcome, detail) in group {
                tally[outcome, default: 0] += 1
                if outcome != .accepted { failures.append((index, outcome, detail)) }
                progress.advance(failed: failures.count)
                if next < total { addTask() }
            }
        }
        progress.finish()
        let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18 + Double((ContinuousClock.now - started).components.seconds)
        printSummary(tally: tally, failures: failures, seconds: seconds)
        return failures.isEmpty
    }

    private func printSummary(tally: [Outcome: Int], failures: [(index: Int, outcome: Outcome, detail: String)], seconds: Double) {
        let rate = seconds > 0 ? Double(total) / seconds : 0
        print("sent \(total) notification\(total == 1 ? "" : "s") to \(request.devices.count) device\(request.devices.count == 1 ? "" : "s") in \(String(format: "%.2f", seconds)) s (\(Int(rate.rounded()))/s)")
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
            print("  #\(failure.index + 1) \(device.redacted) (\(source)): \(failure.outcome.label)" + (failure.detail.isEmpty ? "" : " — \(failure.detail)"))
        }
        if sorted.count > 20 { print("  … and \(sorted.count - 20) more") }
    }
}

/// A one-line progress bar on standard error, redrawn at most ten times a second.
struct ProgressBar {
    let total: Int
    private var done = 0
    private var failed = 0
    private var lastDrawn = ContinuousClock.now - .seconds(1)

    init(total: Int) {
        self.total = total
    }

    mutating func advance(failed: Int) {
        done += 1
        self.failed = failed
        let now = ContinuousClock.now
        if now - lastDrawn >= .milliseconds(100) || done == total {
            lastDrawn = now
            draw()
        }
    }

    private func draw() {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "\r\(bar) \(done)/\(total)" + (failed > 0 ? " (\(failed) failed)" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
