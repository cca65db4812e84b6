import Foundation
import HeraldStore
import HeraldWire
import Logging
import NIOWebSocket

/// What every device link shares (the store, the hub of online devices, the delivery recorder), and the
/// work a link hands off its event loop because it needs the store.
///
/// A class, so that each link holds one pointer rather than a copy.
final class DeviceLinkServices: Sendable {
    let configuration: GatewayConfiguration
    let store: any Store
    let hub: DeviceHub
    let recorder: DeliveryRecorder
    let directory: Directory
    /// Announces retired tokens, this link's own unregistrations among them.
    let retirements: RetirementFeed?
    let clock: any WallClock
    let metrics: GatewayMetrics
    let logger: Logger
    /// Delivery state changes for `GET /v1/events`.
    let events: DeliveryEvents

    init(
        configuration: GatewayConfiguration, store: any Store, hub: DeviceHub, recorder: DeliveryRecorder,
        directory: Directory, retirements: RetirementFeed? = nil, clock: any WallClock, metrics: GatewayMetrics, logger: Logger,
        events: DeliveryEvents = DeliveryEvents()
    ) {
        self.retirements = retirements
        self.configuration = configuration
        self.store = store
        self.hub = hub
        self.recorder = recorder
        self.directory = directory
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.events = events
    }

    /// Checks the hello against the challenge's nonce and saves the device; returns its device id.
    ///
    /// - Throws: ``DeviceLinkStateMachine/Closing`` (1008) for a bad key or signature, ``StoreError`` when
    ///   the device cannot be saved.
    func authenticate(_ hello: DeviceLinkMessage.Hello, nonce: String) async throws -> String {
        guard let (deviceID, publicKey) = DeviceIdentity.verify(hello, nonce: nonce) else {
            throw DeviceLinkStateMachine.Closing(.policyViolation, "authentication failed: bad public key or signature", .authenticationFailed)
        }
        let now = clock.now()
        try await store.saveLinkedDevice(LinkedDevice(id: deviceID, publicKey: publicKey, firstSeenAt: now, lastSeenAt: now))
        return deviceID
    }

    /// The answer to a `register` or `unregister` from the device `deviceID`.
    func answer(_ request: DeviceLinkMessage, deviceID: String) async throws(StoreError) -> DeviceLinkMessage {
        switch request {
        case .register(let topic):
            guard !topic.isEmpty, TopicSyntax.isValid(topic) else {
                return .error(reason: "BadTopic", message: "\"\(topic)\" is not a bundle id such as com.example.app", topic: topic)
            }
            let registered = try await store.devices(owner: deviceID).filter {
                $0.retiredAt == nil && $0.environment == configuration.environment
            }
            if registered.count >= configuration.deviceAppLimit, !registered.contains(where: { $0.topic == topic }) {
                return .error(
                    reason: "TooManyApps",
                    message: "this device has \(registered.count) apps registered, the most a device may have; unregister one first",
                    topic: topic)
            }
            let device = try await store.register(
                owner: deviceID, bundleID: topic, environment: configuration.environment, at: clock.now()
            )
            directory.remember(device)
            return .registered(topic: topic, deviceToken: device.token.hex)
        case .unregister(let topic):
            guard var device = try await store.devices(owner: deviceID).first(where: { $0.topic == topic }) else {
                return .error(reason: "NotRegistered", message: "this device has no registration for \(topic)", topic: topic)
            }
            let now = clock.now()
            // The answer below tells the device; the feed announces it to the console (and to no one else here).
            hub.answeredRetirement(of: device.token, true)
            do {
                _ = try await store.retireDevice(device.token, as: .unregistered, at: now)
            } catch {
                hub.answeredRetirement(of: device.token, false)
                throw error
            }
            device.retiredAt = now
            device.retirement = .unregistered
            directory.remember(device)
            await retirements?.check()
            return .unregistered(topic: topic, deviceToken: device.token.hex)
        default:
            preconditionFailure("\(request.typeName) is not a request")
        }
    }

    /// Reads the link's next pending notifications from the store and hands them to it; those expired
    /// meanwhile are discarded. After a failed read the link waits a second before it tries again.
    func fetchPending(for link: DeviceLink, after: Int64, limit: Int, mark: Int) async {
        let rows: [StoredNotification]
        do {
            rows = try await store.pendingNotifications(deviceID: link.deviceID, after: after, limit: limit)
        } catch {
            logger.error("cannot read pending notifications", metadata: ["error": "\(error.message)"])
            try? await Task.sleep(for: .seconds(1))
            link.fetchFailed()
            return
        }
        let now = clock.now()
        var expired: [StoredNotification] = []
        link.fetched(rows, limit: limit, mark: mark) { notification in
            guard notification.isExpired(at: now) else { return true }
            expired.append(notification)
            return false
        }
        recorder.discarded(expired.compactMap(\.id), reason: .expired)
        events.publish { expired.map { DeliveryEvents.discarded($0, reason: .expired, at: now) } }
    }
}

extension DeviceLinkServices {
    /// Records what the person did with a notification this device received, for the delivery log, off the link's
    /// event loop; a response to a notification that did not go to this device is ignored.
    func recordResponse(_ response: NotificationResponse, to uniqueID: UUID, deviceID: String) {
        Task {
            do throws(StoreError) {
                guard try await store.recordResponse(response, uniqueID: uniqueID, deviceID: deviceID) else {
                    return metrics.deviceLinkMessageIgnored("response")
                }
                events.publish { [DeliveryEvents.responded(uniqueID: uniqueID, deviceID: deviceID, response: response)] }
            } catch {
                logger.error("cannot record a response", metadata: ["error": "\(error.message)"])
            }
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
