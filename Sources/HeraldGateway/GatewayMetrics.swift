import HeraldWire
import NIOCore
public import Prometheus

/// The gateway's Prometheus metrics, served on the console port at `/metrics`.
public final class GatewayMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let accepted: Counter
    private let latency: DurationHistogram
    private let openConnections: Gauge

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        accepted = registry.makeCounter(name: "herald_notifications_accepted_total", help: "Notifications answered 200 (committed to the store).")
        latency = registry.makeDurationHistogram(
            name: "herald_provider_request_duration_seconds",
            buckets: [.microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
                      .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1)],
            help: "Time from a provider request's last byte to its response."
        )
        openConnections = registry.makeGauge(name: "herald_provider_open_connections", help: "Open provider API connections.")
    }

    func record(status: Int, reason: APNsReason?, since start: NIODeadline) {
        let elapsed = NIODeadline.now() - start
        latency.record(.nanoseconds(elapsed.nanoseconds))
        if let reason {
            registry.makeCounter(
                name: "herald_notifications_rejected_total",
                labels: [("reason", reason.rawValue)],
                help: "Provider requests answered with an error, by APNs reason."
            ).increment()
        } else {
            accepted.increment()
        }
    }

    func connectionOpened() { openConnections.increment() }
    func connectionClosed() { openConnections.decrement() }
}
