import ArgumentParser

/// Load and latency tools for Herald's benchmarks and fault scripts (`scripts/bench-*.sh`, `scripts/crash-delivery.sh`).
/// They drive a running `herald serve` through its real ports: the provider API and the device link.
@main
struct HeraldBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald-bench",
        abstract:
            "Drive a running Herald gateway: end-to-end latency, a fleet of connected devices, a recorded flood; time the delivery log and HPACK coding.",
        subcommands: [
            Latency.self, Fleet.self, Flood.self, Triggers.self, Presented.self, Desktop.self, LogLookups.self, ContentExpansion.self,
            HeaderCoding.self, BroadcastFanOut.self,
        ]
    )
}
