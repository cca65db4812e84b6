import HeraldWire
import NIOCore
public import Prometheus

/// The gateway's Prometheus metrics, served on the console port at `/metrics`.
public final class GatewayMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let accepted: Counter
    private let latency: DurationHistogram
    private let openConnections: Gauge
    private let commitDuration: DurationHistogram
    private let batchSize: ValueHistogram
    private let onlineDevices: Gauge
    private let sent: Counter
    private let acknowledged: Counter

    private static var rejectedName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", metricName: "notifications_rejected", unitName: "total",
            helpText: "Provider requests answered with an error, by APNs reason."
        )
    }

    /// From a quarter millisecond (an uncontended answer) to a second (something is badly wrong).
    private static let durationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        accepted = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", metricName: "notifications_accepted", unitName: "total",
                helpText: "Notifications answered 200 (committed to the store)."
            ))
        latency = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "request_duration", unitName: "seconds",
                helpText: "Time from a provider request's last byte to its answer."
            ),
            buckets: Self.durationBuckets
        )
        openConnections = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "provider", metricName: "open", unitName: "connections",
                helpText: "Open provider API connections."
            ))
        commitDuration = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "store", metricName: "commit_duration", unitName: "seconds",
                helpText: "Time to commit one batch of notifications to the store."
            ),
            buckets: Self.durationBuckets
        )
        batchSize = registry.makeValueHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "store", metricName: "commit_batch", unitName: "notifications",
                helpText: "Notifications per store commit."
            ),
            buckets: [1, 4, 16, 64, 256, 1024, 4096]
        )
        onlineDevices = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "herald", subsystem: "devices", metricName: "online", unitName: "links",
                helpText: "Devices holding an authenticated device link."
            ))
        sent = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", metricName: "notifications_sent", unitName: "total",
                helpText: "Notifications written to a device link (resends included)."
            ))
        acknowledged = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "herald", metricName: "notifications_delivered", unitName: "total",
                helpText: "Notifications a device acknowledged."
            ))
    }

    func record(status: Int, reason: APNsReason?, since start: NIODeadline) {
        latency.record(.nanoseconds((NIODeadline.now() - start).nanoseconds))
        if let reason {
            registry.makeCounter(descriptor: Self.rejectedName, labels: [("reason", reason.rawValue)]).increment()
        } else {
            accepted.increment()
        }
    }

    func recordCommit(count: Int, since start: NIODeadline) {
        commitDuration.record(.nanoseconds((NIODeadline.now() - start).nanoseconds))
        batchSize.record(Double(count))
    }

    func connectionOpened() { openConnections.increment() }
    func connectionClosed() { openConnections.decrement() }
    func deviceLinked() { onlineDevices.increment() }
    func deviceUnlinked() { onlineDevices.decrement() }
    func notificationSent() { sent.increment() }
    func notificationAcknowledged() { acknowledged.increment() }
}
