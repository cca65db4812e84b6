import ArgumentParser
import Foundation
import HeraldClient
import HeraldDBus
import HeraldDesktopTesting
import HeraldDevice
import HeraldSpawn
import HeraldTesting
import HeraldWire

#if canImport(Glibc)
import Glibc
#endif

/// Provider → desktop bubble through the device daemon: a private session bus (`dbus-daemon --session`) with a
/// recording notification server runs in this process, `herald device --presenter desktop --json` runs as a child on
/// that bus, and notifications go out at a fixed rate. Each is timed from the instant its provider request was
/// answered 200 to the instant the server received its `Notify` call (matched by the body, which is the apns-id),
/// and the daemon's CPU time is read from /proc before and after.
struct Desktop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Provider 200 → Notify on a desktop notification server through `herald device --presenter desktop`, at a fixed rate."
    )

    @OptionGroup var provider: ProviderOptions

    @OptionGroup var daemonOptions: DaemonOptions

    @Option(help: "Notifications per second.")
    var rate = 100

    @Option(help: "Seconds to send for.")
    var duration = 30

    func validate() throws {
        guard rate > 0, duration > 0 else { throw ValidationError("--rate and --duration must be positive") }
    }

    func run() async throws {
        let bus = try await TestSessionBus()
        let server = try await ScriptedNotificationServer.start(on: bus.address)
        let token = Locked<String?>(nil)
        let topic = provider.topic
        // Its standard error (which notification server it reached, or why not) goes to ours.
        let daemon = try daemonOptions.launch(
            ca: provider.ca, extraArguments: ["--presenter", "desktop"], environment: bus.environment, standardError: nil
        ) { event, _ in
            guard event["event"]?.stringValue == "registered", event["topic"]?.stringValue == topic else { return }
            token.withLock { $0 = event["deviceToken"]?.stringValue }
        }
        do {
            try await measure(daemon: daemon, server: server, token: token)
        } catch {
            await stop(daemon, server, bus)
            throw error
        }
        await stop(daemon, server, bus)
    }

    private func stop(_ daemon: ChildProcess, _ server: ScriptedNotificationServer, _ bus: TestSessionBus) async {
        daemon.terminate()
        _ = await daemon.terminated()
        server.stop()
        await bus.stop()
    }

    /// One notification's instants.
    private struct Sent: Sendable {
        var index: Int
        var requested: ContinuousClock.Instant
        var answered: ContinuousClock.Instant
    }

    private func measure(daemon: ChildProcess, server: ScriptedNotificationServer, token: Locked<String?>) async throws {
        guard await poll(timeout: .seconds(10), { token.value != nil }), let deviceToken = token.value else {
            throw BenchError("the daemon did not register \(provider.topic) within 10 s")
        }
        let pool = try await ProviderPool.open(provider, warmUpToken: deviceToken)
        // Timing starts once the warm-ups (one per connection) have reached the server: the presenter is connected and
        // the server has been asked for its capabilities by then.
        let warmUps = max(1, provider.connections)
        guard await poll(timeout: .seconds(15), { server.notifications.count >= warmUps }) else {
            await pool.close()
            throw BenchError(
                "the daemon did not call Notify for the warm-up within 15 s (did it fall back to the terminal? see its messages above)")
        }
        let busPID = try? await server.connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", [.string("org.freedesktop.DBus")]
        ).first?.integer.flatMap(Int32.init(exactly:))

        let total = rate * duration
        let thirds = [0, total / 3, 2 * total / 3, total]
        let sent = Locked<[String: Sent]>([:])
        let outcomes = Locked<[String: Int]>([:])
        var daemonCPU: [Duration?] = [cpuTime(of: daemon.processIdentifier)]
        let busCPUBefore = busPID.flatMap(cpuTime(of:))
        let start = ContinuousClock.now
        await withDiscardingTaskGroup { sends in
            var index = 0
            while index < total {
                let due = min(total, Int((ContinuousClock.now - start) / .seconds(1) * Double(rate)) + 1)
                while index < due {
                    let apnsID = APNsID.format(UUID())
                    let body = Data(#"{"aps":{"alert":{"title":"Episode \#(index)","body":"\#(apnsID)"}},"podcast-guest":"Guest \#(index)"}"#.utf8)
                    let number = index
                    sends.addTask {
                        let requested = ContinuousClock.now
                        let outcome: String
                        do {
                            let response = try await pool.send(token: deviceToken, apnsID: apnsID, body: body)
                            let answered = ContinuousClock.now
                            outcome = response.status == 200 ? "200" : "\(response.status) \(response.reason?.rawValue ?? "")"
                            if response.status == 200 {
                                sent.withLock { $0[apnsID] = Sent(index: number, requested: requested, answered: answered) }
                            }
                        } catch {
                            outcome = "error: \(error)"
                        }
                        outcomes.withLock { $0[outcome, default: 0] += 1 }
                    }
                    index += 1
                    // The daemon's CPU time as each third of the notifications has been sent.
                    if thirds.dropFirst().dropLast().contains(index) { daemonCPU.append(cpuTime(of: daemon.processIdentifier)) }
                }
                // Wake when the next one is due, not on a fixed tick, so the sender takes as little CPU as it can.
                if index < total { try? await Task.sleep(until: start + .seconds(Double(index) / Double(rate)), tolerance: .zero) }
            }
        }
        let sendingTook = ContinuousClock.now - start
        let accepted = sent.value
        let arrivedAll = await poll(timeout: .seconds(30)) {
            let bodies = Set(server.notifications.map(\.body))
            return accepted.keys.allSatisfy(bodies.contains)
        }
        // Let anything late settle, so the CPU time read after covers all of it.
        try? await Task.sleep(for: .milliseconds(200))
        daemonCPU.append(cpuTime(of: daemon.processIdentifier))
        let busCPUAfter = busPID.flatMap(cpuTime(of:))
        await pool.close()

        var notified: [String: ScriptedNotificationServer.Notification] = [:]
        for notification in server.notifications where accepted[notification.body] != nil {
            notified[notification.body] = notification
        }
        let matched = accepted.compactMap { apnsID, times in notified[apnsID].map { (times, $0) } }
        let fromAnswer = matched.map { $0.1.receivedAt - $0.0.answered }
        let fromRequest = matched.map { $0.1.receivedAt - $0.0.requested }
        let providerAnswer = accepted.values.map { $0.answered - $0.requested }
        let replaced = matched.filter { $0.1.replacesID != 0 }.count

        print(
            "desktop: \(rate)/s for \(duration) s through herald device --presenter desktop to a scripted notification server on a private session bus; "
                + "\(provider.connections) provider connection\(provider.connections == 1 ? "" : "s")"
        )
        print("sent \(total) in \(Percentiles.milliseconds(sendingTook)) ms, accepted \(accepted.count), Notify received for \(matched.count)")
        for (outcome, count) in outcomes.value.sorted(by: { $0.key < $1.key }) where outcome != "200" {
            print("  \(count) × \(outcome)")
        }
        if !arrivedAll {
            let missing = accepted.keys.filter { notified[$0] == nil }.sorted { accepted[$0]!.index < accepted[$1]!.index }
            print("MISSING: \(missing.count) accepted notifications never reached the server, e.g. \(missing.prefix(5).joined(separator: ", "))")
        }
        if replaced > 0 { print("note: \(replaced) Notify calls replaced an earlier bubble") }
        let early = fromAnswer.filter { $0 < .zero }.count
        if early > 0 { print("note: \(early) reached the server before their 200 reached the provider (counted as negative)") }
        print("provider request → 200:   \(Percentiles(providerAnswer).summary)")
        print("provider 200 → Notify:    \(Percentiles(fromAnswer).summary)")
        print("provider request → Notify: \(Percentiles(fromRequest).summary)")
        for third in 0..<3 {
            let range = thirds[third]..<thirds[third + 1]
            let slice = matched.filter { range.contains($0.0.index) }.map { $0.1.receivedAt - $0.0.answered }
            let seconds = "\(String(format2: Double(range.lowerBound) / Double(rate)))–\(String(format2: Double(range.upperBound) / Double(rate))) s"
            let cpu = perNotification(daemonCPU[third], daemonCPU[third + 1], count: range.count)
            print("  sent \(seconds): 200 → Notify \(Percentiles(slice).summary); daemon CPU \(cpu)")
        }
        print("daemon (herald device) CPU: \(perNotification(daemonCPU.first!, daemonCPU.last!, count: matched.count))")
        if let busPID {
            print("session bus (dbus-daemon) CPU: \(perNotification(busCPUBefore, busCPUAfter, count: matched.count)) (pid \(busPID))")
        }
    }

    /// `123 µs per notification (4.56 s in all)`.
    private func perNotification(_ before: Duration?, _ after: Duration?, count: Int) -> String {
        guard let before, let after, count > 0 else { return "unknown" }
        let used = after - before
        return "\(microseconds(used / count)) µs per notification (\(Percentiles.milliseconds(used)) ms in all)"
    }
}

private func microseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
}

/// User and system CPU time `pid` has used, all threads (utime + stime of /proc/PID/stat, in clock ticks).
private func cpuTime(of pid: Int32) -> Duration? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let afterName = stat.lastIndex(of: ")") else {
        return nil
    }
    // Fields after the command name; utime and stime are the 14th and 15th of the whole line.
    let fields = stat[stat.index(after: afterName)...].split(separator: " ")
    guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return .microseconds((user + system) * 1_000_000 / Int(sysconf(Int32(_SC_CLK_TCK))))
}
