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
    private let webPushAccepted: Counter

    private static var rejectedName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", metricName: "notifications_rejected", unitName: "total",
            helpText: "Provider requests answered with an error, by APNs reason."
        )
    }

    private static var providerClosedName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", subsystem: "provider", metricName: "connections_closed", unitName: "total",
            helpText:
                "Provider connections the gateway cut off, by reason: handshake_timeout, unused (no request showed its sender in time), stalled (the client reads nothing), or the HTTP/2 error that ended it (floods, oversized or bad frames)."
        )
    }

    private static var linkClosedName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", subsystem: "device_link", metricName: "closed", unitName: "total",
            helpText: "Device links and device port connections the gateway closed, by reason."
        )
    }

    private static var linkIgnoredName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", subsystem: "device_link", metricName: "ignored", unitName: "total",
            helpText: "Acknowledgements and responses a device sent for notifications that were not in flight to it."
        )
    }

    private static var linkRefusedName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", subsystem: "device_link", metricName: "requests_refused", unitName: "total",
            helpText: "Registrations and unregistrations answered with an error, by reason."
        )
    }

    private static var webPushAnsweredName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", subsystem: "webpush", metricName: "messages", unitName: "total",
            helpText: "Web Push requests (docs/web-push.md), by answer: accepted (201, committed) or Apple's reason."
        )
    }

    private static var faultsAppliedName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "herald", metricName: "faults_applied", unitName: "total",
            helpText:
                "Provider requests a fault rule took (docs/faults.md), by action: answer, delay, reset, goaway, close, stall, drop. Their answers are also counted with the others."
        )
    }

    /// From a quarter millisecond (an uncontended answer) to a second (something is badly wrong).
    private static let durationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        webPushAccepted = registry.makeCounter(descriptor: Self.webPushAnsweredName, labels: [("answer", "accepted")])
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

    /// The gateway cut a provider connection off: `handshake_timeout`, `unused`, `stalled`, or the HTTP/2 error's type.
    func providerConnectionClosed(_ reason: String) {
        registry.makeCounter(descriptor: Self.providerClosedName, labels: [("reason", reason)]).increment()
    }

    /// A fault rule took a request.
    /// A Web Push request's answer: 201 when `refused` is nil.
    func recordWebPush(refused reason: APNsReason?) {
        guard let reason else { return webPushAccepted.increment() }
        registry.makeCounter(descriptor: Self.webPushAnsweredName, labels: [("answer", reason.rawValue)]).increment()
    }

    func faultApplied(_ action: String) {
        registry.makeCounter(descriptor: Self.faultsAppliedName, labels: [("action", action)]).increment()
    }

    func deviceLinkClosed(_ kind: DeviceLinkStateMachine.Closing.Kind) {
        guard kind != .byDevice else { return }
        registry.makeCounter(descriptor: Self.linkClosedName, labels: [("reason", kind.rawValue)]).increment()
    }

    /// A device's `ack` or `response` named a notification that was not in flight to it.
    func deviceLinkMessageIgnored(_ type: String) {
        registry.makeCounter(descriptor: Self.linkIgnoredName, labels: [("message", type)]).increment()
    }

    /// A register or unregister answered with an error (`BadTopic`, `NotRegistered`, `TooManyApps`, `TooManyRequests`).
    func deviceLinkRequestRefused(_ reason: String) {
        registry.makeCounter(descriptor: Self.linkRefusedName, labels: [("reason", reason)]).increment()
    }
}
