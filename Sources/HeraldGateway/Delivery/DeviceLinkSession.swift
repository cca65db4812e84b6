import Foundation
import HeraldStore
import HeraldWire
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// What every device link shares: the store, the hub of online devices, the delivery recorder.
///
/// A class, so that each of the many suspended frames of every link holds one pointer rather than a copy.
final class DeviceLinkServices: Sendable {
    let configuration: GatewayConfiguration
    let store: any Store
    let hub: DeviceHub
    let recorder: DeliveryRecorder
    let directory: Directory
    let clock: any WallClock
    let metrics: GatewayMetrics
    let logger: Logger

    init(
        configuration: GatewayConfiguration, store: any Store, hub: DeviceHub, recorder: DeliveryRecorder,
        directory: Directory, clock: any WallClock, metrics: GatewayMetrics, logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.hub = hub
        self.recorder = recorder
        self.directory = directory
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }
}

/// One device's WebSocket: challenge and hello, then registrations, acknowledgements and notifications.
/// `docs/device-link.md` is the protocol.
struct DeviceLinkSession {
    let services: DeviceLinkServices
    let inbound: WebSocketInboundStream
    let outbound: WebSocketOutboundWriter

    /// A reason to close the link, sent as the WebSocket close frame.
    struct Closing: Error {
        var code: WebSocketErrorCode
        var reason: String
    }

    func run() async throws {
        var messages = inbound.messages(maxSize: services.configuration.deviceLinkMessageLimit).makeAsyncIterator()
        do {
            guard let (deviceID, publicKey) = try await authenticate(&messages) else { return }
            try await serve(deviceID: deviceID, publicKey: publicKey, messages: &messages)
        } catch let closing as Closing {
            services.logger.debug("device link closed", metadata: ["reason": "\(closing.reason)"])
            try? await outbound.close(closing.code, reason: closing.reason)
        }
    }

    /// Sends the challenge and checks the hello; nil when the device left before answering.
    private func authenticate(
        _ messages: inout WebSocketInboundMessageStream.AsyncIterator
    ) async throws -> (String, Data)? {
        let nonce = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        try await outbound.write(.text(DeviceLinkMessage.challenge(nonce: nonce).encoded()))
        let outbound = self.outbound
        let timeout = services.configuration.deviceAuthenticationTimeout
        let first = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await Task.sleep(for: .nanoseconds(timeout.nanoseconds))
                try? await outbound.close(.policyViolation, reason: "no hello within \(timeout.nanoseconds / 1_000_000_000) s")
            }
            defer { group.cancelAll() }
            return try await messages.next()
        }
        guard let first else { return nil }
        guard case .hello(let hello) = try Self.decode(first) else {
            throw Closing(code: .policyViolation, reason: "the first message must be hello")
        }
        guard let (deviceID, publicKey) = DeviceIdentity.verify(hello, nonce: nonce) else {
            throw Closing(code: .policyViolation, reason: "authentication failed: bad public key or signature")
        }
        return (deviceID, publicKey)
    }

    private func serve(
        deviceID: String,
        publicKey: Data,
        messages: inout WebSocketInboundMessageStream.AsyncIterator
    ) async throws {
        let now = services.clock.now()
        try await services.store.saveLinkedDevice(LinkedDevice(id: deviceID, publicKey: publicKey, firstSeenAt: now, lastSeenAt: now))
        let link = DeviceLink(deviceID: deviceID, window: services.configuration.deviceLinkWindow)
        services.hub.attach(link)?.close(.replaced)
        services.metrics.deviceLinked()
        defer {
            services.hub.detach(link)
            link.close(.ended)
            services.metrics.deviceUnlinked()
        }
        try await outbound.write(.text(DeviceLinkMessage.welcome(deviceID: deviceID).encoded()))
        services.logger.debug("device linked", metadata: ["device": "\(deviceID.prefix(8))"])

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await send(link) }
            do {
                while let message = try await messages.next() {
                    try await handle(try Self.decode(message), link: link)
                }
            } catch {
                link.close(.ended)
                throw error
            }
            link.close(.ended)
            try await group.waitForAll()
        }
    }

    /// Writes what the link hands out until it closes; then closes the WebSocket if the link was taken
    /// over or the gateway is stopping (which ends the receiving side too).
    private func send(_ link: DeviceLink) async throws {
        while let step = await link.next() {
            switch step {
            case .send(let notifications):
                for notification in notifications {
                    try await outbound.write(.text(DeviceLinkMessage.notification(notification.linkNotification).encoded()))
                    services.metrics.notificationSent()
                }
            case .fetch(let after, let limit, let mark):
                let rows: [StoredNotification]
                do {
                    rows = try await services.store.pendingNotifications(deviceID: link.deviceID, after: after, limit: limit)
                } catch {
                    services.logger.error("cannot read pending notifications", metadata: ["error": "\(error.message)"])
                    link.fetchFailed()
                    try await Task.sleep(for: .seconds(1))
                    continue
                }
                let now = services.clock.now()
                var expired: [Int64] = []
                link.fetched(rows, limit: limit, mark: mark) { notification in
                    guard notification.isExpired(at: now) else { return true }
                    if let id = notification.id { expired.append(id) }
                    return false
                }
                services.recorder.discarded(expired, reason: .expired)
            }
        }
        switch link.closeReason {
        case .replaced:
            try? await outbound.close(.unknown(4001), reason: "replaced by a newer link from the same device")
        case .shutdown:
            try? await outbound.close(.goingAway, reason: "the gateway is shutting down")
        case .ended, nil:
            return
        }
    }

    private func handle(_ message: DeviceLinkMessage, link: DeviceLink) async throws {
        switch message {
        case .ack(let uniqueID):
            if let id = link.acknowledge(uniqueID) {
                services.recorder.delivered(id)
                services.metrics.notificationAcknowledged()
            }
        case .register(let topic):
            guard !topic.isEmpty, TopicSyntax.isValid(topic) else {
                return try await reply(.error(reason: "BadTopic", message: "\"\(topic)\" is not a bundle id such as com.example.app"))
            }
            let device = try await services.store.register(
                owner: link.deviceID, bundleID: topic, environment: services.configuration.environment, at: services.clock.now()
            )
            services.directory.remember(device)
            try await reply(.registered(topic: topic, deviceToken: device.token.hex))
        case .unregister(let topic):
            guard var device = try await services.store.devices(owner: link.deviceID).first(where: { $0.topic == topic }) else {
                return try await reply(.error(reason: "NotRegistered", message: "this device has no registration for \(topic)"))
            }
            let now = services.clock.now()
            _ = try await services.store.retireDevice(device.token, as: .unregistered, at: now)
            device.retiredAt = now
            device.retirement = .unregistered
            services.directory.remember(device)
            try await reply(.unregistered(topic: topic, deviceToken: device.token.hex))
        case .challenge, .hello, .welcome, .registered, .unregistered, .notification, .error:
            throw Closing(code: .protocolError, reason: "a device may not send \(message.typeName) here")
        }
    }

    private func reply(_ message: DeviceLinkMessage) async throws {
        try await outbound.write(.text(message.encoded()))
    }

    private static func decode(_ message: WebSocketMessage) throws(Closing) -> DeviceLinkMessage {
        guard case .text(let text) = message else {
            throw Closing(code: .unacceptableData, reason: "the device link carries JSON text messages, not binary")
        }
        do {
            return try DeviceLinkMessage.decode(text)
        } catch {
            throw Closing(code: .dataInconsistentWithMessage, reason: "malformed message: \(error)")
        }
    }
}

extension StoredNotification {
    var linkNotification: LinkNotification {
        LinkNotification(
            apnsID: apnsID,
            uniqueID: uniqueID,
            topic: topic,
            bundleID: bundleID,
            deviceToken: deviceToken.hex,
            pushType: pushType,
            priority: priority,
            collapseID: collapseID,
            expiration: expiration,
            receivedAt: Int64((receivedAt.timeIntervalSince1970 * 1000).rounded(.down)),
            payload: payload
        )
    }
}
