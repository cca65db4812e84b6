package import Crypto
import Foundation
package import HeraldWire
import HummingbirdWSClient
package import Logging
import NIOCore
package import NIOSSL
import NIOWebSocket
import Synchronization

/// What happens on a device's link to its gateway.
package enum GatewayLinkEvent: Sendable {
    /// Authenticated; `sender` sends further requests (registrations) on this connection.
    case connected(deviceID: String, sender: GatewayLinkSender)
    case registered(topic: String, deviceToken: String)
    case unregistered(topic: String, deviceToken: String)
    /// A notification seen for the first time (duplicates are acknowledged and dropped before this).
    case notification(LinkNotification)
    /// The gateway refused a request; the link stays open.
    case refused(reason: String, message: String)
}

/// Sends requests on one link connection (until it closes).
package struct GatewayLinkSender: Sendable {
    fileprivate let write: @Sendable (DeviceLinkMessage) async throws -> Void

    package func send(_ message: DeviceLinkMessage) async throws {
        try await write(message)
    }
}

/// Why a link session ended.
package struct GatewayLinkClosed: Error, CustomStringConvertible {
    package var description: String
}

/// The device's side of the device link: authenticates with the device key, registers apps, receives,
/// de-duplicates and acknowledges notifications. `docs/device-link.md` is the protocol.
package struct GatewayLink: Sendable {
    package let url: String
    private let tls: TLSConfiguration?
    private let key: P256.Signing.PrivateKey
    private let journal: DeliveryJournal?
    private let logger: Logger

    /// - Parameters:
    ///   - gateway: `https://HOST:PORT` (or `wss://`, `ws://`, `http://`) of the gateway's device port.
    ///   - caPath: A PEM file of the CA to trust (the gateway's `DATA_DIR/tls/ca.pem`); nil trusts the system's.
    ///   - journal: Where seen apns-ids are remembered to drop resends; nil when the handler does that itself
    ///     (the device daemon's inbox).
    ///   - tls: A client TLS configuration to use instead of one built from `caPath` (benchmarks that skip
    ///     host name checks to reach one gateway on several loopback addresses).
    package init(
        gateway: String, caPath: String?, key: P256.Signing.PrivateKey, journal: DeliveryJournal?, logger: Logger,
        tls: TLSConfiguration? = nil
    ) throws {
        guard var components = URLComponents(string: gateway), let scheme = components.scheme?.lowercased(), components.host != nil else {
            throw GatewayLinkClosed(description: "\(gateway) is not a URL such as https://localhost:5223")
        }
        switch scheme {
        case "https", "wss": components.scheme = "wss"
        case "http", "ws": components.scheme = "ws"
        default: throw GatewayLinkClosed(description: "\(gateway): use https:// (or http:// for a --plaintext gateway)")
        }
        if components.path.isEmpty || components.path == "/" { components.path = DeviceLinkMessage.path }
        guard let url = components.string else { throw GatewayLinkClosed(description: "\(gateway) is not a usable URL") }
        self.url = url
        if components.scheme == "wss" {
            var configuration = tls ?? TLSConfiguration.makeClientConfiguration()
            if tls == nil, let caPath {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caPath))
            }
            // A link that is ending reads no more, so it would only notice the gateway's close_notify when
            // this runs out: NIOSSL's default of 5 s made every stop of a linked device take 5 s.
            configuration.shutdownTimeout = .milliseconds(300)
            self.tls = configuration
        } else {
            self.tls = nil
        }
        self.key = key
        self.journal = journal
        self.logger = logger
    }

    /// One connection: authenticates, sends `requests`, then reports events until the gateway closes the
    /// link or `handler` returns false. Each notification is acknowledged once `handler` returned.
    ///
    /// - Returns: Why the link closed.
    @discardableResult
    package func session(
        requests: [DeviceLinkMessage],
        handler: @escaping @Sendable (GatewayLinkEvent) async throws -> Bool
    ) async throws -> String {
        let key = self.key
        let journal = self.journal
        let close = try await WebSocketClient.connect(
            url: url,
            configuration: .init(maxFrameSize: 1 << 16, autoPing: .disabled),
            tlsConfiguration: tls,
            logger: logger
        ) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
            func next() async throws -> DeviceLinkMessage? {
                guard let message = try await messages.next() else { return nil }
                guard case .text(let text) = message else { throw GatewayLinkClosed(description: "the gateway sent a binary message") }
                return try DeviceLinkMessage.decode(text)
            }
            func send(_ message: DeviceLinkMessage) async throws {
                try await outbound.write(.text(message.encoded()))
            }
            guard case .challenge(let nonce)? = try await next() else { return }
            try await send(.hello(try DeviceIdentity.hello(answering: nonce, with: key)))
            guard case .welcome(let deviceID)? = try await next() else { return }
            let sender = GatewayLinkSender { message in try await outbound.write(.text(message.encoded())) }
            guard try await handler(.connected(deviceID: deviceID, sender: sender)) else { return }
            for request in requests { try await send(request) }
            while let message = try await next() {
                let keepGoing: Bool
                switch message {
                case .registered(let topic, let token):
                    keepGoing = try await handler(.registered(topic: topic, deviceToken: token))
                case .unregistered(let topic, let token):
                    keepGoing = try await handler(.unregistered(topic: topic, deviceToken: token))
                case .notification(let notification):
                    let first = try await journal?.firstSighting(of: APNsID.format(notification.apnsID)) ?? true
                    keepGoing = first ? try await handler(.notification(notification)) : true
                    try await send(.ack(uniqueID: notification.uniqueID))
                case .error(let reason, let message):
                    keepGoing = try await handler(.refused(reason: reason, message: message))
                default:
                    throw GatewayLinkClosed(description: "the gateway sent an unexpected \(message.typeName)")
                }
                if !keepGoing {
                    try await outbound.close(.normalClosure, reason: "done")
                    return
                }
            }
        }
        guard let close else { return "the connection closed" }
        return "\(close.closeCode)" + (close.reason.map { ": \($0)" } ?? "")
    }

    /// Sessions until cancelled, reconnecting after a dropped link with backoff (0.2 s doubling to 5 s, each
    /// wait drawn from the upper half of that, so a fleet dropped at once does not reconnect at once).
    /// `topics` is asked on each connection: the apps to register then.
    package func run(
        topics: @escaping @Sendable () -> [String],
        handler: @escaping @Sendable (GatewayLinkEvent) async throws -> Void,
        onDisconnect: @escaping @Sendable (String) async -> Void
    ) async throws {
        var failures = 0
        while !Task.isCancelled {
            let connected = Mutex(false)
            let reason: String
            do {
                reason = try await session(requests: topics().map { .register(topic: $0) }) { event in
                    if case .connected = event { connected.withLock { $0 = true } }
                    try await handler(event)
                    return true
                }
            } catch {
                reason = "\(error)"
            }
            // Stopping is not a dropped link: nothing to report and no reconnect.
            try Task.checkCancellation()
            failures = connected.withLock { $0 } ? 1 : failures + 1
            await onDisconnect(reason)
            try await Task.sleep(for: Backoff.wait(attempt: failures, initial: .milliseconds(200), maximum: .seconds(5)))
        }
    }
}
