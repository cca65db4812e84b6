import Crypto
import Foundation
import HeraldDevice
import HeraldWire
import Logging
import NIOSSL
import Synchronization
import UserNotifications

/// One simulated device: its own key, one app registered, every notification reported to `onNotification`.
protocol BenchDevice: Sendable {
    /// The app's token once registered.
    var deviceToken: String? { get }
    /// Why the current or last link ended, once it has.
    var closed: String? { get }
    /// Holds one link open until it ends or the task is cancelled. Running it again reconnects as the same
    /// device (same key, same token), which receives what the gateway stored meanwhile.
    func run(onNotification: @escaping @Sendable (LinkNotification) -> Void) async
}

/// A device on GatewayLink, the device library `herald device` runs. Many of them share one duplicate journal,
/// if they keep one.
final class GatewayLinkDevice: BenchDevice {
    private let link: GatewayLink
    private let topic: String
    private let token = Mutex<String?>(nil)
    private let closedReason = Mutex<String?>(nil)

    init(gateway: String, caPath: String?, topic: String, journal: DeliveryJournal?, tls: TLSConfiguration? = nil) throws {
        link = try GatewayLink(
            gateway: gateway, caPath: caPath, key: P256.Signing.PrivateKey(), journal: journal, tls: tls
        )
        self.topic = topic
    }

    var deviceToken: String? { token.withLock { $0 } }
    var closed: String? { closedReason.withLock { $0 } }

    func run(onNotification: @escaping @Sendable (LinkNotification) -> Void) async {
        closedReason.withLock { $0 = nil }
        do {
            let reason = try await link.session(requests: [.register(topic: topic)]) { event in
                switch event {
                case .registered(_, let deviceToken): self.token.withLock { $0 = deviceToken }
                case .notification(let notification): onNotification(notification)
                case .connected, .unregistered, .refused, .liveActivity: break
                }
                return !Task.isCancelled
            }
            closedReason.withLock { $0 = reason }
        } catch {
            closedReason.withLock { $0 = "\(error)" }
        }
    }
}

/// Waits, polling, until `condition` holds or `timeout` passes.
func poll(timeout: Duration, every interval: Duration = .milliseconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
    return true
}

/// State shared between the tasks of a benchmark, behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    init(_ value: Value) { state = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    var value: Value { withLock { $0 } }
}
