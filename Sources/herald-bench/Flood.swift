import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire
import Synchronization

/// Sends N notifications to one device token and records the apns-id of every one answered 200, one per
/// line, as the answer arrives — the record a crash test checks the device against. Stops at the first
/// connection failure (the gateway was killed), unless `--reconnect`: then a lost connection is replaced (through a
/// load balancer, by one to another node) and the flood goes on; what was in flight on it is counted, not resent.
struct Flood: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send N notifications to one token; append each 200'd apns-id to a file as it is answered."
    )

    @OptionGroup var provider: ProviderOptions

    @Option(help: "The device token.")
    var device: String

    @Option(help: "Notifications to send.")
    var count = 10_000

    @Option(help: "Requests in flight at once.")
    var concurrency = 64

    @Option(help: "File to append accepted apns-ids to.")
    var out: String

    @Flag(help: "Replace a lost connection and go on, rather than stop (for a cluster behind a load balancer).")
    var reconnect = false

    @Option(help: "Notifications started per second at most; 0 for as fast as --concurrency allows.")
    var rate = 0

    func run() async throws {
        guard FileManager.default.createFile(atPath: out, contents: nil), let file = FileHandle(forWritingAtPath: out) else {
            throw BenchError("cannot write \(out)")
        }
        let pool = try await ProviderPool.open(provider, warmUpToken: device, reconnect: reconnect)
        let accepted = Locked(0)
        let refused = Locked<[String: Int]>([:])
        let broken = Locked(false)
        let written = Locked(file)
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { sends in
            for sequence in 0..<count {
                if broken.value { break }
                if sequence >= concurrency { await sends.next() }
                if rate > 0 { try? await Task.sleep(until: start + .seconds(Double(sequence) / Double(rate)), tolerance: .zero) }
                sends.addTask {
                    let id = APNsID.format(UUID())
                    let body = Data(#"{"aps":{"alert":{"title":"Flood","body":"\#(sequence)"}},"sequence":\#(sequence)}"#.utf8)
                    do {
                        let response = try await pool.send(token: device, apnsID: id, body: body)
                        if response.status == 200 {
                            written.withLock { $0.write(Data((id + "\n").utf8)) }
                            accepted.withLock { $0 += 1 }
                        } else {
                            refused.withLock { $0["\(response.status) \(response.reason?.rawValue ?? "")", default: 0] += 1 }
                        }
                    } catch {
                        // Without --reconnect the gateway is gone; with it, only when no new connection could be made.
                        if !reconnect || error is ProviderPool.ReconnectFailed { broken.withLock { $0 = true } }
                        refused.withLock { $0["no answer: \(error)", default: 0] += 1 }
                    }
                }
            }
        }
        try file.close()
        await pool.close()
        let took = ContinuousClock.now - start
        print("accepted \(accepted.value) of \(count) in \(Percentiles.milliseconds(took)) ms" + (broken.value ? " before the connection broke" : ""))
        for (outcome, number) in refused.withLock({ $0 }).sorted(by: { $0.key < $1.key }) { print("  \(number) × \(outcome)") }
    }
}
