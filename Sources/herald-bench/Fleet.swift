import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire
import Synchronization
import UserNotifications

/// Many devices on live links to one gateway: how long they take to connect, what they cost the gateway in
/// memory, and how fast one notification to each of them arrives.
///
/// With `--online` below `--count`, the devices come in waves of that size, for fleets larger than the open-file
/// limit lets one machine hold links to: each wave registers and disconnects, the last stays online for the
/// fan-out, and the others then reconnect wave by wave to collect what the gateway stored for them.
struct Fleet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Connect N devices, report the gateway's RSS, then send each one notification and time the fan-out."
    )

    @OptionGroup var provider: ProviderOptions
    @OptionGroup var device: DeviceOptions

    @Option(help: "Devices to register.")
    var count = 10_000

    @Option(
        help:
            "Devices online at once (default: all of them). Fewer than --count connect in waves of this size; the offline ones receive their notification when their wave reconnects."
    )
    var online: Int?

    @Option(name: .customLong("connect-batch"), help: "Devices connecting at the same time.")
    var connectBatch = 250

    @Option(name: .customLong("gateway-pid"), help: "The gateway's process id, to read its resident memory from /proc.")
    var gatewayPID: Int32?

    @Option(help: "Seconds to hold the links open after the fan-out.")
    var hold = 0

    func validate() throws {
        if count < 1 { throw ValidationError("--count must be at least 1") }
        if let online, online < 1 { throw ValidationError("--online must be at least 1") }
    }

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let factory = try device.factory(caPath: provider.ca, topic: provider.topic, scratch: scratch)
        let devices = try (0..<count).map(factory.device)
        let waveSize = min(online ?? count, count)
        // The last wave, the one online for the fan-out, is a full one; the first takes what is left over.
        let waves = stride(from: count, to: 0, by: -waveSize).reversed().map { max(0, $0 - waveSize)..<$0 }
        let baseline = residentMemory()
        report("gateway RSS before: \(megabytes(baseline))")

        let dueAt = Locked<ContinuousClock.Instant?>(nil)
        let arrivals = Locked<[Duration]>([])
        let received = Locked([Int](repeating: 0, count: count))
        let onNotification: @Sendable (Int, LinkNotification) -> Void = { index, _ in
            let now = ContinuousClock.now
            received.withLock { $0[index] += 1 }
            guard let due = dueAt.withLock({ $0 }) else { return }
            arrivals.withLock { $0.append(now - due) }
        }

        let registered = { (index: Int) in devices[index].deviceToken != nil }
        let start = ContinuousClock.now
        let cpuBefore = cpuTime()
        for wave in waves.dropLast() {
            try await Links.open(wave, of: devices, batch: connectBatch, onNotification: onNotification, until: registered).disconnect()
        }
        let live = try await Links.open(waves[waves.count - 1], of: devices, batch: connectBatch, onNotification: onNotification, until: registered)
        let connectTook = ContinuousClock.now - start
        let connected = residentMemory()
        report("registered \(count) devices in \(Percentiles.milliseconds(connectTook)) ms (\(perSecond(count, connectTook))/s)")
        if let cpuBefore, let cpuAfter = cpuTime() {
            report(
                "gateway CPU per registration (TLS, WebSocket, challenge, register): \(Percentiles.milliseconds((cpuAfter - cpuBefore) / count)) ms")
        }
        report("gateway RSS with \(live.count) devices online\(live.count < count ? " and \(count) registered" : ""): \(megabytes(connected))")
        if let baseline, let connected {
            report("RSS growth per device online: \((connected - baseline) / live.count) bytes")
        }

        // The online devices first: their notifications are timed from the start of the fan-out.
        let order = Array(live.indices) + Array(0..<live.indices.lowerBound)
        let tokens = order.compactMap { devices[$0].deviceToken }
        let pool = try await ProviderPool.open(provider, warmUpToken: tokens[0])
        try await Task.sleep(for: .milliseconds(500))  // let the warm-up notification arrive first
        received.withLock { $0 = [Int](repeating: 0, count: count) }
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
        let accepted = ContinuousClock.now - fanOutStart
        report(
            "fan-out: \(count - failures.value) of \(count) accepted in \(Percentiles.milliseconds(accepted)) ms (\(perSecond(count - failures.value, accepted))/s)"
        )
        _ = await poll(timeout: .seconds(60)) { arrivals.withLock { $0.count } >= live.count - failures.value }
        dueAt.withLock { $0 = nil }
        let fanOut = arrivals.withLock { $0 }
        report("fan-out to the \(live.count) online: \(fanOut.count) delivered, last after \(Percentiles.milliseconds(Percentiles(fanOut).at(1))) ms")
        report("fan-out provider→device: \(Percentiles(fanOut).summary)")
        report("gateway RSS after the fan-out: \(megabytes(residentMemory()))")
        await pool.close()
        if hold > 0 { try await Task.sleep(for: .seconds(hold)) }
        await live.disconnect()

        if waves.count > 1 {
            let offline = waves.dropLast()
            let storedStart = ContinuousClock.now
            for wave in offline {
                try await Links.open(wave, of: devices, batch: connectBatch, onNotification: onNotification) { index in
                    received.withLock { $0[index] > 0 }
                }.disconnect()
            }
            let storedTook = ContinuousClock.now - storedStart
            let stored = offline.reduce(0) { $0 + $1.count }
            report(
                "stored for the \(stored) offline: all delivered on reconnect, \(offline.count) waves in \(Percentiles.milliseconds(storedTook)) ms (\(perSecond(stored, storedTook)) devices/s)"
            )
        }
        let counts = received.withLock { $0 }
        let missing = counts.count { $0 == 0 }
        let duplicated = counts.count { $0 > 1 }
        report("exactly once: \(count - missing - duplicated) of \(count) devices (\(missing) got none, \(duplicated) more than one)")
        if missing + duplicated > 0 { throw ExitCode.failure }
    }

    private func report(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func perSecond(_ count: Int, _ duration: Duration) -> Int {
        let seconds = duration / .seconds(1)
        return seconds > 0 ? Int((Double(count) / seconds).rounded()) : 0
    }

    private func cpuTime() -> Duration? { gatewayPID.flatMap { GatewayUsage(pid: $0).cpuTime() } }

    private func residentMemory() -> Int? { gatewayPID.flatMap { GatewayUsage(pid: $0).residentMemory() } }

    private func megabytes(_ bytes: Int?) -> String {
        bytes.map { "\($0 / 1_048_576) MiB" } ?? "unknown (pass --gateway-pid)"
    }
}

/// Open links, each batch held by a task until disconnected.
struct Links {
    let indices: Range<Int>
    var count: Int { indices.count }
    var tasks: [Task<Void, Never>] = []

    /// Opens the links of `indices`, `batch` at a time, each batch once `ready` holds for all of it.
    static func open(
        _ indices: Range<Int>, of devices: [any BenchDevice], batch size: Int,
        onNotification: @escaping @Sendable (Int, LinkNotification) -> Void,
        until ready: (Int) -> Bool
    ) async throws -> Links {
        var links = Links(indices: indices)
        for start in stride(from: indices.lowerBound, to: indices.upperBound, by: size) {
            let batch = start..<min(indices.upperBound, start + size)
            links.tasks.append(
                Task {
                    await withDiscardingTaskGroup { group in
                        for index in batch {
                            group.addTask { await devices[index].run { onNotification(index, $0) } }
                        }
                    }
                })
            guard await poll(timeout: .seconds(60), { batch.allSatisfy(ready) }) else {
                let stuck = batch.first { !ready($0) } ?? batch.lowerBound
                await links.disconnect()
                throw BenchError("device \(stuck + 1) of \(devices.count) was not ready within 60 s: \(devices[stuck].closed ?? "no reason known")")
            }
        }
        return links
    }

    func disconnect() async {
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
