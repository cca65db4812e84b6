import ArgumentParser
import Foundation
import HeraldClient
import HeraldDevice
import HeraldSpawn
import HeraldWire
import Synchronization
import UserNotifications

/// Provider → presented latency through the device daemon: `herald device --json` runs as a child, and each
/// notification is timed from just before its request is sent to the moment the daemon prints it as presented.
struct Presented: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Provider → presented latency through `herald device` (the daemon), with or without a service extension."
    )

    @OptionGroup var provider: ProviderOptions

    @OptionGroup var daemonOptions: DaemonOptions

    @Option(help: "Notifications to time, sent one after another.")
    var count = 200

    @Option(help: "Milliseconds between sends.")
    var interval = 20

    @Flag(name: .customLong("mutable-content"), help: "Send mutable-content: 1, so the app's service extension runs for each.")
    var mutableContent = false

    func run() async throws {
        let presented = Locked<[String: ContinuousClock.Instant]>([:])
        let token = Locked<String?>(nil)
        let topic = provider.topic
        let daemon = try daemonOptions.launch(ca: provider.ca) { event, now in
            switch event["event"]?.stringValue {
            case "notification":
                if let apnsID = event["apnsID"]?.stringValue { presented.withLock { $0[apnsID] = now } }
            case "registered" where event["topic"]?.stringValue == topic:
                token.withLock { $0 = event["deviceToken"]?.stringValue }
            default:
                break
            }
        }
        defer { daemon.terminate() }

        var deviceToken: String?
        for _ in 0..<1000 where deviceToken == nil {
            try await Task.sleep(for: .milliseconds(10))
            deviceToken = token.withLock { $0 }
        }
        guard let deviceToken else { throw BenchError("the daemon did not register \(topic) within 10 s") }
        let pool = try await ProviderPool.open(provider, warmUpToken: deviceToken)
        var sent: [String: ContinuousClock.Instant] = [:]
        for index in 0..<count {
            let apnsID = UUID().uuidString.lowercased()
            let aps =
                mutableContent
                ? #""alert":{"title":"Episode \#(index)","body":"Out now"},"mutable-content":1"#
                : #""alert":{"title":"Episode \#(index)","body":"Out now"}"#
            let body = Data(#"{"aps":{\#(aps)},"podcast-guest":"Guest \#(index)"}"#.utf8)
            let start = ContinuousClock.now
            let response = try await pool.send(token: deviceToken, apnsID: apnsID, body: body)
            guard response.status == 200 else { throw BenchError("a notification got \(response.status) \(response.reason?.rawValue ?? "")") }
            sent[apnsID] = start
            try await Task.sleep(for: .milliseconds(interval))
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while presented.withLock({ $0.count }) < count + 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        await pool.close()
        let arrivals = presented.withLock { $0 }
        let latencies = sent.compactMap { apnsID, start in arrivals[apnsID].map { $0 - start } }
        let mode = mutableContent ? "with the service extension" : "without a service extension"
        print("presented \(latencies.count)/\(count) \(mode): \(Percentiles(latencies).summary)")
    }
}
