import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire
import Synchronization

/// One broadcast to many subscribed devices: N devices link, register and subscribe to a channel, then one
/// `POST /4/broadcasts/apps/BUNDLE` goes to the channel; times the answer and the arrival at every device, and the
/// gateway's CPU for the whole fan-out.
struct BroadcastFanOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broadcast",
        abstract: "Subscribe N devices to a channel, send one broadcast, and time until the last has it."
    )

    @OptionGroup var provider: ProviderOptions
    @OptionGroup var device: DeviceOptions

    @Option(help: "The channel (`herald channels create`).")
    var channel: String

    @Option(help: "Devices to subscribe.")
    var count = 10_000

    @Option(name: .customLong("connect-batch"), help: "Devices connecting at the same time.")
    var connectBatch = 250

    @Option(help: "Broadcasts to send, one after another, each timed.")
    var rounds = 3

    @Option(name: .customLong("gateway-pid"), help: "The gateway's process id, to read its CPU time from /proc.")
    var gatewayPID: Int32?

    func validate() throws {
        if device.gatewayLink { throw ValidationError("broadcast runs on herald-bench's lean link; leave out --gateway-link") }
    }

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-broadcast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let factory = try device.factory(caPath: provider.ca, topic: provider.topic, scratch: scratch, channelID: channel)
        let devices = try (0..<count).map(factory.device)
        // Every arrival with its broadcast's id: some come before the answer that says the id.
        let round = Mutex<(sent: ContinuousClock.Instant, arrivals: [(id: UUID, after: Duration)])>((.now, []))
        let onNotification: @Sendable (Int, LinkNotification) -> Void = { _, notification in
            let now = ContinuousClock.now
            round.withLock { $0.arrivals.append((notification.uniqueID, now - $0.sent)) }
        }
        let start = ContinuousClock.now
        let links = try await Links.open(0..<count, of: devices, batch: connectBatch, onNotification: onNotification) {
            devices[$0].deviceToken != nil
        }
        print("subscribed \(count) devices in \(Percentiles.milliseconds(ContinuousClock.now - start)) ms")

        guard let url = URL(string: provider.provider) else { throw BenchError("--provider \(provider.provider) is not a URL") }
        let connection = try await APNsConnection.connect(to: url, trusting: provider.ca)
        let usage = gatewayPID.map { GatewayUsage(pid: $0) }
        for index in 1...rounds {
            let body = Data(
                #"{"aps":{"event":"update","timestamp":\#(Int(Date().timeIntervalSince1970) + index),"content-state":{"round":\#(index)}}}"#.utf8)
            let cpuBefore = usage?.cpuTime()
            let sent = ContinuousClock.now
            round.withLock { $0 = (sent, []) }
            let answer = try await connection.send(
                headers: [
                    (":method", "POST"), (":scheme", url.scheme ?? "https"), (":path", "/4/broadcasts/apps/\(provider.topic)"),
                    (":authority", url.host ?? "localhost"), ("authorization", "bearer \(provider.jwt)"), ("apns-channel-id", channel),
                    ("apns-push-type", "liveactivity"), ("apns-expiration", "0"), ("apns-priority", "10"),
                ], body: body)
            let answered = ContinuousClock.now - sent
            guard answer.status == 200, let id = answer.uniqueID.flatMap(APNsID.parse) else {
                throw BenchError("the broadcast got \(answer.status) \(answer.reason?.rawValue ?? "") (a development gateway answers apns-unique-id)")
            }
            let ofThisRound = { round.withLock { $0.arrivals.filter { $0.id == id }.map(\.after) } }
            _ = await poll(timeout: .seconds(60)) { ofThisRound().count >= count }
            let arrivals = ofThisRound()
            let last = arrivals.max() ?? .zero
            var line =
                "round \(index): answered 200 in \(Percentiles.milliseconds(answered)) ms; \(arrivals.count) of \(count) devices had it, the last after \(Percentiles.milliseconds(last)) ms"
            if let cpuBefore, let cpuAfter = usage?.cpuTime() {
                line +=
                    "; gateway CPU \(Percentiles.milliseconds(cpuAfter - cpuBefore)) ms (\(String(format: "%.1f", Double((cpuAfter - cpuBefore) / .microseconds(1)) / Double(count))) µs per delivered update)"
            }
            print(line)
            if arrivals.count < count { throw BenchError("\(count - arrivals.count) devices did not get round \(index)") }
        }
        await connection.close()
        await links.disconnect()
    }
}
