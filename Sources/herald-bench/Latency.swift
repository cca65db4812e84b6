import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire
import Synchronization
import UserNotifications

/// End-to-end latency: notifications sent open-loop at a fixed rate to devices on live links, timed from the
/// moment each was due to be sent to the moment the device's handler sees it, and from the moment its 200 arrived.
/// `--provider` and `--device-gateway` may name different nodes of a cluster: sent to one, delivered by another.
struct Latency: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Provider → device latency at a fixed rate (p50/p99 from the due send time to the device's handler)."
    )

    @OptionGroup var provider: ProviderOptions
    @OptionGroup var device: DeviceOptions

    @Option(help: "Notifications per second.")
    var rate = 1000

    @Option(help: "How long to send.")
    var seconds = 10

    @Option(help: "Devices on live links; notifications go round-robin to their tokens.")
    var devices = 10

    @Option(help: "Path of h2load: it sends all but --probe-rate of the load, herald-bench times the probes.")
    var h2load: String?

    @Option(name: .customLong("probe-rate"), help: "With --h2load: timed notifications per second among the rate.")
    var probeRate = 500

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let factory = try device.factory(caPath: provider.ca, topic: provider.topic, scratch: scratch)
        let fleet = try (0..<devices).map(factory.device)
        let dueAt = Locked<[String: ContinuousClock.Instant]>([:])
        let endToEnd = Locked<[Duration]>([])
        let answered = Locked<[Duration]>([])
        // When each 200 arrived and when each notification reached its device, by apns-id: for the time from the
        // gateway's acceptance to the device (zero for those the device had before the provider had their 200).
        let answeredAt = Locked<[String: ContinuousClock.Instant]>([:])
        let receivedAt = Locked<[String: ContinuousClock.Instant]>([:])
        let outcomes = Locked<[String: Int]>([:])

        try await withThrowingDiscardingTaskGroup { links in
            for device in fleet {
                links.addTask {
                    await device.run { notification in
                        let now = ContinuousClock.now
                        let id = APNsID.format(notification.apnsID)
                        guard let due = dueAt.withLock({ $0[id] }) else { return }
                        endToEnd.withLock { $0.append(now - due) }
                        receivedAt.withLock { $0[id] = now }
                    }
                }
            }
            guard await poll(timeout: .seconds(60), { fleet.allSatisfy { $0.deviceToken != nil } }) else {
                throw BenchError("devices did not register within 60 s: \(fleet.compactMap(\.closed).first ?? "no reason")")
            }
            let tokens = fleet.compactMap(\.deviceToken)
            let pool = try await ProviderPool.open(provider, warmUpToken: tokens[0])
            let timedRate = h2load == nil ? rate : min(rate, probeRate)
            let background = try h2load.map {
                try BackgroundLoad(h2load: $0, provider: provider, tokens: tokens, rate: rate - timedRate, seconds: seconds)
            }
            let total = timedRate * seconds
            let start = ContinuousClock.now
            await withDiscardingTaskGroup { sends in
                var sent = 0
                while sent < total {
                    let due = min(total, Int((ContinuousClock.now - start) / .seconds(1) * Double(timedRate)) + 1)
                    while sent < due {
                        let id = APNsID.format(UUID())
                        let dueInstant = start + .seconds(Double(sent) / Double(timedRate))
                        let token = tokens[sent % tokens.count]
                        let body = Data(#"{"aps":{"alert":{"title":"Latency","body":"n\#(sent)"}}}"#.utf8)
                        dueAt.withLock { $0[id] = dueInstant }
                        sends.addTask {
                            let outcome: String
                            do {
                                let response = try await pool.send(token: token, apnsID: id, body: body)
                                outcome = response.status == 200 ? "200" : "\(response.status) \(response.reason?.rawValue ?? "")"
                                if response.status == 200 {
                                    let now = ContinuousClock.now
                                    answered.withLock { $0.append(now - dueInstant) }
                                    answeredAt.withLock { $0[id] = now }
                                }
                            } catch {
                                outcome = "error: \(error)"
                            }
                            outcomes.withLock { $0[outcome, default: 0] += 1 }
                        }
                        sent += 1
                    }
                    // Wake when the next one is due, not on a fixed tick: on a small machine, needless wake-ups
                    // of the sender take CPU from the gateway it measures.
                    if sent < total { try? await Task.sleep(until: start + .seconds(Double(sent) / Double(timedRate)), tolerance: .zero) }
                }
            }
            let sendingTook = ContinuousClock.now - start
            let backgroundSummary = await background?.finish()
            let accepted = outcomes.withLock { $0["200"] ?? 0 }
            _ = await poll(timeout: .seconds(15)) { endToEnd.withLock { $0.count } >= accepted }
            await pool.close()

            let delivered = endToEnd.withLock { $0 }
            print(
                "end-to-end at \(rate)/s for \(seconds) s: \(devices) devices on TLS device links \(device.summary), \(provider.connections) provider connections"
            )
            if let backgroundSummary {
                print("h2load sent \(rate - timedRate)/s untimed (\(backgroundSummary)); herald-bench timed \(timedRate)/s of probes")
            }
            print("timed \(total) in \(Percentiles.milliseconds(sendingTook)) ms, accepted \(accepted), delivered \(delivered.count)")
            for (outcome, count) in outcomes.withLock({ $0 }).sorted(by: { $0.key < $1.key }) where outcome != "200" {
                print("  \(count) × \(outcome)")
            }
            print("provider 200:     \(Percentiles(answered.withLock { $0 }).summary)")
            print("provider→device:  \(Percentiles(delivered).summary)")
            let received = receivedAt.withLock { $0 }
            let sinceAnswer = answeredAt.withLock { $0 }.compactMap { id, answer in received[id].map { $0 - answer } }
            let beforeAnswer = sinceAnswer.filter { $0 < .zero }.count
            print(
                "200→device:       \(Percentiles(sinceAnswer.map { max($0, .zero) }).summary)  (\(beforeAnswer) of \(sinceAnswer.count) on the device before their 200 arrived: 0)"
            )
            links.cancelAll()
        }
    }
}
