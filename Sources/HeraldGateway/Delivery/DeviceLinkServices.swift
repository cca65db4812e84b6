import Foundation
import HeraldStore
import HeraldWire
import Logging
import NIOWebSocket
import Synchronization

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
    /// The origin of the web push endpoints this gateway serves, once their port is bound (``webPushServed(at:)``).
    private let boundWebPushOrigin = Mutex<String?>(nil)

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

    /// The origin of the web push endpoints this gateway serves (``GatewayConfiguration/webPushOrigin(port:)`` of the
    /// bound port); nil when it serves none, and then a device link takes no web push subscriptions.
    var webPushOrigin: String? { boundWebPushOrigin.withLock { $0 } }

    /// The web push port is bound: subscriptions made over device links get endpoints at `origin`.
    func webPushServed(at origin: String) {
        boundWebPushOrigin.withLock { $0 = origin }
    }

    /// A device that proved its key: its id and the channels it takes broadcasts on.
    struct Authenticated: Sendable {
        var deviceID: String
        var channels: Set<String>
    }

    /// Checks the hello against the challenge's nonce and saves the device; returns its device id and subscriptions.
    ///
    /// - Throws: ``DeviceLinkStateMachine/Closing`` (1008) for a bad key or signature, ``StoreError`` when
    ///   the device cannot be saved.
    func authenticate(_ hello: DeviceLinkMessage.Hello, nonce: String) async throws -> Authenticated {
        guard let (deviceID, publicKey) = DeviceIdentity.verify(hello, nonce: nonce) else {
            throw DeviceLinkStateMachine.Closing(.policyViolation, "authentication failed: bad public key or signature", .authenticationFailed)
        }
        let now = clock.now()
        try await store.saveLinkedDevice(LinkedDevice(id: deviceID, publicKey: publicKey, firstSeenAt: now, lastSeenAt: now))
        let subscriptions = try await store.subscriptions(deviceID: deviceID)
        return Authenticated(deviceID: deviceID, channels: Set(subscriptions.map(\.channelID)))
    }

    /// Offers the link the kept broadcasts of its channels it has not acknowledged (a device coming back, or one that
    /// just subscribed); a failed read is only logged: the next link tries again.
    func offerKeptBroadcasts(to link: DeviceLink) async {
        do {
            for broadcast in try await store.keptBroadcasts(deviceID: link.deviceID, at: clock.now()) {
                link.offerBroadcast(broadcast)
            }
        } catch {
            logger.error("cannot read kept broadcasts", metadata: ["error": "\(error.message)"])
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
    /// The notification as the device link carries it; a web push message's ciphertext body wrapped in a JSON object
    /// (``WebPushLinkPayload``), as the link's payload is always one.
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
            payload: pushType == .webPush ? webPushLinkPayload : payload,
            channelID: channelID
        )
    }

    private var webPushLinkPayload: Data {
        WebPushLinkPayload(body: payload, urgency: webPush?.urgency ?? .normal, ttl: webPush?.ttl ?? 0, topic: collapseID).encoded()
    }
}
