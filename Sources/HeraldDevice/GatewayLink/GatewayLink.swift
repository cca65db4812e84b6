package import Crypto
import Foundation
import HeraldTLS
package import HeraldWire
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
    /// The gateway refused a request for `topic` (nil from gateways that do not say); the link stays open.
    case refused(reason: String, message: String, topic: String?)
    /// An answer about Live Activities: a push-to-start or activity token registered or retired, a channel subscribed
    /// or unsubscribed, or a refusal of one of those requests.
    case liveActivity(DeviceLinkMessage)
}

/// Sends requests on one link connection (until it closes).
package struct GatewayLinkSender: Sendable {
    fileprivate let write: @Sendable (DeviceLinkMessage) async throws -> Void

    package func send(_ message: DeviceLinkMessage) async throws {
        try await write(message)
    }
}

/// What a link's handler throws for a notification it could not take now (a web push message whose app's connector
/// did not answer): the notification is not acknowledged, so the gateway keeps it and sends it again on the next link.
/// The link goes on. (With a ``DeliveryJournal``, the resend would be taken for a duplicate: handlers that throw this
/// de-duplicate themselves.)
package struct GatewayLinkUndelivered: Error {
    package init() {}
}

/// Why a link session ended.
package struct GatewayLinkClosed: Error, CustomStringConvertible {
    package var description: String
}

/// The device's side of the device link: authenticates with the device key, registers apps, receives,
/// de-duplicates and acknowledges notifications. `docs/device-link.md` is the protocol.
package struct GatewayLink: Sendable {
    package let url: String
    private let socket: LinkWebSocket
    private let key: P256.Signing.PrivateKey
    private let journal: DeliveryJournal?

    /// - Parameters:
    ///   - gateway: `https://HOST:PORT` (or `wss://`, `ws://`, `http://`) of the gateway's device port; HOST may be
    ///     a name, an IPv4 address or an IPv6 address in brackets.
    ///   - caPath: A PEM file of the CA to trust (the gateway's `DATA_DIR/tls/ca.pem`); nil trusts the system's.
    ///   - journal: Where seen apns-ids are remembered to drop resends; nil when the handler does that itself
    ///     (the device daemon's inbox).
    ///   - tls: A client TLS configuration to use instead of one built from `caPath` (benchmarks that skip
    ///     host name checks to reach one gateway on several loopback addresses).
    /// - Throws: ``GatewayLinkClosed`` for a URL that is not one, or a CA file that cannot be read.
    package init(
        gateway: String, caPath: String?, key: P256.Signing.PrivateKey, journal: DeliveryJournal?, tls: TLSConfiguration? = nil
    ) throws {
        guard var components = URLComponents(string: gateway), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw GatewayLinkClosed(description: "\(gateway) is not a URL such as https://localhost:5223")
        }
        let secure: Bool
        switch scheme {
        case "https", "wss": (secure, components.scheme) = (true, "wss")
        case "http", "ws": (secure, components.scheme) = (false, "ws")
        default: throw GatewayLinkClosed(description: "\(gateway): use https:// (or http:// for a --plaintext gateway)")
        }
        if components.path.isEmpty || components.path == "/" { components.path = DeviceLinkMessage.path }
        guard let url = components.string else { throw GatewayLinkClosed(description: "\(gateway) is not a usable URL") }
        self.url = url
        var context: NIOSSLContext?
        if secure {
            var configuration = tls ?? TLSConfiguration.makeClientConfiguration()
            // A link that is ending reads no more, so it would only notice the gateway's close_notify when
            // this runs out: NIOSSL's default of 5 s made every stop of a linked device take 5 s.
            configuration.shutdownTimeout = .milliseconds(300)
            do {
                if tls == nil, let caPath {
                    configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caPath))
                }
                context = try NIOSSLContext(configuration: configuration)
            } catch {
                throw GatewayLinkClosed(
                    description: "cannot read the CA certificate \(caPath ?? ""): give a PEM file such as the gateway's DATA_DIR/tls/ca.pem")
            }
        }
        socket = LinkWebSocket(
            host: TLSHost(host), port: components.port ?? (secure ? 443 : 80), path: components.percentEncodedPath,
            tls: context, trustedCA: tls == nil ? caPath : nil
        )
        self.key = key
        self.journal = journal
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
        return try await socket.run { inbound, outbound in
            var events = inbound.makeAsyncIterator()
            var close: LinkWebSocket.Close?
            func next() async throws -> DeviceLinkMessage? {
                guard close == nil, let event = try await events.next() else { return nil }
                switch event {
                case .text(let text):
                    return try DeviceLinkMessage.decode(text)
                case .closed(let frame):
                    close = frame
                    return nil
                }
            }
            func send(_ message: DeviceLinkMessage) async throws {
                try await outbound.write(.text(message.encoded()))
            }
            func ended() -> String { close.map { "\($0)" } ?? "the connection closed" }

            guard case .challenge(let nonce)? = try await next() else { return ended() }
            try await send(.hello(try DeviceIdentity.hello(answering: nonce, with: key)))
            guard case .welcome(let deviceID)? = try await next() else { return ended() }
            let sender = GatewayLinkSender { message in try await outbound.write(.text(message.encoded())) }
            var keepGoing = try await handler(.connected(deviceID: deviceID, sender: sender))
            if keepGoing {
                for request in requests { try await send(request) }
            }
            while keepGoing, let message = try await next() {
                switch message {
                case .registered(let topic, let token, .app, _, _):
                    keepGoing = try await handler(.registered(topic: topic, deviceToken: token))
                case .unregistered(let topic, let token, .app, _):
                    keepGoing = try await handler(.unregistered(topic: topic, deviceToken: token))
                case .registered, .unregistered, .subscribed, .unsubscribed:
                    keepGoing = try await handler(.liveActivity(message))
                case .error(let refusal) where refusal.kind != nil || refusal.channelID != nil:
                    keepGoing = try await handler(.liveActivity(message))
                case .notification(let notification):
                    let first = try await journal?.firstSighting(of: APNsID.format(notification.apnsID)) ?? true
                    do {
                        keepGoing = first ? try await handler(.notification(notification)) : true
                    } catch is GatewayLinkUndelivered {
                        continue  // not acknowledged: the gateway keeps it and sends it again on the next link
                    }
                    try await send(.ack(uniqueID: notification.uniqueID))
                case .error(let refusal):
                    keepGoing = try await handler(.refused(reason: refusal.reason, message: refusal.message, topic: refusal.topic))
                default:
                    throw GatewayLinkClosed(description: "the gateway sent an unexpected \(message.typeName)")
                }
            }
            if close == nil, !keepGoing {
                // The device's own close: it waits (briefly) for the gateway's answer.
                try await outbound.write(.close(.normalClosure, reason: "done"))
                while try await next() != nil {}
                return "closed by the device"
            }
            return ended()
        }
    }

    /// Sessions until cancelled, reconnecting after a dropped link with backoff (0.2 s doubling to 5 s, each
    /// wait drawn from the upper half of that, so a fleet dropped at once does not reconnect at once).
    /// `requests` is asked on each connection: what to send then (the apps to register, Live Activity tokens and channels).
    package func run(
        requests: @escaping @Sendable () -> [DeviceLinkMessage],
        handler: @escaping @Sendable (GatewayLinkEvent) async throws -> Void,
        onDisconnect: @escaping @Sendable (String) async -> Void
    ) async throws {
        var failures = 0
        while !Task.isCancelled {
            let connected = Mutex(false)
            let reason: String
            do {
                reason = try await session(requests: requests()) { event in
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
