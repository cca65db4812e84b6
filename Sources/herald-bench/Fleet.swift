import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire
import Synchronization
import UserNotifications

/// Many devices on live links to one gateway: how long they take to connect, what they cost the gateway in
/// memory, and how fast one notification to each of them arrives.
struct Fleet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Connect N devices, report the gateway's RSS, then send each one notification and time the fan-out."
    )

    @OptionGroup var provider: ProviderOptions
    @OptionGroup var device: DeviceOptions

    @Option(help: "Devices to connect.")
    var count = 10_000

    @Option(name: .customLong("connect-batch"), help: "Devices connecting at the same time.")
    var connectBatch = 250

    @Option(name: .customLong("gateway-pid"), help: "The gateway's process id, to read its resident memory from /proc.")
    var gatewayPID: Int32?

    @Option(help: "Seconds to hold the links open after the fan-out.")
    var hold = 0

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let factory = try device.factory(caPath: provider.ca, topic: provider.topic, scratch: scratch)
        let baseline = residentMemory()
        report("gateway RSS before: \(megabytes(baseline))")
        let dueAt = Locked<ContinuousClock.Instant?>(nil)
        let arrivals = Locked<[Duration]>([])
        var fleet: [any BenchDevice] = []

        try await withThrowingDiscardingTaskGroup { links in
            let start = ContinuousClock.now
            while fleet.count < count {
                let batch = try (fleet.count..<min(count, fleet.count + connectBatch)).map { index in
                    try factory.device(index)
                }
                for member in batch {
                    links.addTask {
                        await member.run { _ in
                            let now = ContinuousClock.now
                            guard let due = dueAt.withLock({ $0 }) else { return }
                            arrivals.withLock { $0.append(now - due) }
                        }
                    }
                }
                guard await poll(timeout: .seconds(60), { batch.allSatisfy { $0.deviceToken != nil || $0.closed != nil } }) else {
                    throw BenchError("a batch of devices did not register within 60 s")
                }
                if let reason = batch.compactMap(\.closed).first {
                    throw BenchError("device \(fleet.count + 1) of \(count) could not connect: \(reason)")
                }
                fleet += batch
            }
            let connectTook = ContinuousClock.now - start
            let connected = residentMemory()
            report("connected \(fleet.count) devices in \(Percentiles.milliseconds(connectTook)) ms")
            report("gateway RSS with \(fleet.count) devices online: \(megabytes(connected))")
            if let baseline, let connected {
                report("per device: \((connected - baseline) / fleet.count) bytes")
            }

            let tokens = fleet.compactMap(\.deviceToken)
            let pool = try await ProviderPool.open(provider, warmUpToken: tokens[0])
            try await Task.sleep(for: .milliseconds(500))  // let the warm-up notification arrive first
            arrivals.withLock { $0.removeAll() }
            let fanOutStart = ContinuousClock.now
            dueAt.withLock { $0 = fanOutStart }
            let failures = Locked(0)
            await withTaskGroup(of: Void.self) { sends in
                for (index, token) in tokens.enumerated() {
                    if index >= 500 { await sends.next() }
                    sends.addTask {
                        let body = Data(#"{"aps":{"alert":{"title":"Fan-out","body":"device \#(index)"}}}"#.utf8)
                        let response = try? await pool.send(token: token, apnsID: nil, body: body)
                        if response?.status != 200 { failures.withLock { $0 += 1 } }
                    }
                }
            }
            _ = await poll(timeout: .seconds(60)) { arrivals.withLock { $0.count } >= tokens.count - failures.value }
            let fanOut = arrivals.withLock { $0 }
            report("fan-out: \(fanOut.count) of \(tokens.count) delivered (\(failures.value) not accepted), last after \(Percentiles.milliseconds(Percentiles(fanOut).at(1))) ms")
            report("fan-out provider→device: \(Percentiles(fanOut).summary)")
            report("gateway RSS after the fan-out: \(megabytes(residentMemory()))")
            await pool.close()
            if hold > 0 { try await Task.sleep(for: .seconds(hold)) }
            links.cancelAll()
        }
    }

    private func report(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// VmRSS of the gateway, in bytes.
    private func residentMemory() -> Int? {
        guard let gatewayPID, let status = try? String(contentsOfFile: "/proc/\(gatewayPID)/status", encoding: .utf8) else { return nil }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
    }

    private func megabytes(_ bytes: Int?) -> String {
        bytes.map { "\($0 / 1_048_576) MiB" } ?? "unknown (pass --gateway-pid)"
    }
}
