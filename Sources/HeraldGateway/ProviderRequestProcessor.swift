import Foundation
import HeraldStore
import HeraldWire
import Logging
import NIOCore

/// One provider request as the stream handler collected it.
struct ProviderRequest {
    var headers: [(name: String, value: String)]
    /// The body, kept up to the largest payload any push type allows plus one byte.
    var body: ByteBuffer
    /// The body's full length, even past what was kept.
    var bodyLength: Int

    /// Bytes kept of a body; anything longer is too large for every push type.
    static let bodyKeepLimit = PushType.voip.maximumPayloadSize + 1
}

/// Applies APNs' rules to a request in APNs' order and answers with its status and reason:
/// headers, authentication, payload, topic, device, rate limit, then a durable commit before 200.
///
/// The rules run synchronously against cached keys and devices; only a cache miss waits for the store
/// (and then the rules run again with what was read), so a request costs no future on the common path.
final class ProviderRequestProcessor: Sendable {
    /// What the authenticated caller may push to.
    enum Grant {
        case key(ProviderKey)
        case certificate(ClientIdentity)
    }

    /// Where evaluating a request ended.
    private enum Evaluation {
        case answer(ProviderResponse)
        case store(StoredNotification)
        case loadKey(teamID: String, keyID: String)
        case loadDevice(DeviceToken)
        case loadPolicy(bundleID: String)
    }

    /// Keys and devices read from the store for this request (they count even if the cache forgot them).
    struct Loaded {
        var key: ResolvedKey??
        var device: DeviceRecord??
        var policy: StoragePolicy?
    }

    typealias Answer = (ProviderResponse) -> Void

    let configuration: GatewayConfiguration
    let directory: Directory
    let store: any Store
    private let verifier: TokenVerifier
    private let rateLimiter: DeviceRateLimiter
    let writer: NotificationWriter
    private let hub: DeviceHub
    let clock: any WallClock
    let metrics: GatewayMetrics
    private let logger: Logger
    /// Scripted failures (docs/faults.md), and the event stream that hears of them.
    let faults: FaultRules
    let events: DeliveryEvents

    init(
        configuration: GatewayConfiguration,
        directory: Directory,
        store: any Store,
        writer: NotificationWriter,
        hub: DeviceHub,
        clock: any WallClock,
        metrics: GatewayMetrics,
        faults: FaultRules,
        events: DeliveryEvents,
        logger: Logger
    ) {
        self.faults = faults
        self.events = events
        self.configuration = configuration
        self.directory = directory
        self.store = store
        verifier = TokenVerifier(cacheLimit: configuration.verifiedTokenCacheLimit)
        rateLimiter = DeviceRateLimiter(
            ratePerSecond: configuration.deviceTokenRatePerSecond,
            burst: configuration.deviceTokenBurst
        )
        self.writer = writer
        self.hub = hub
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// Answers `request`; must be called on `connection`'s event loop, and `answer` runs there.
    func process(_ request: ProviderRequest, on connection: ProviderConnection, answer: @escaping Answer) {
        let start = NIODeadline.now()
        let finish: Answer = { response in
            connection.record(response.rejection)
            self.metrics.record(status: response.status, reason: response.rejection?.reason, since: start)
            if let rejection = response.rejection {
                self.logger.debug("rejected", metadata: ["apns-id": "\(APNsID.format(response.apnsID))", "reason": "\(rejection)"])
            }
            answer(response)
        }
        if BroadcastHead.isBroadcast(request.headers) { return processBroadcast(request, on: connection, finish: finish) }
        // The client's apns-id, when well formed, is on every answer, even one refused before its headers are read.
        let apnsID = RequestHead.requestedAPNsID(in: request.headers) ?? APNsID.generate()
        run(request, connection: connection, apnsID: apnsID, loaded: Loaded(), finish: finish)
    }

    private func run(_ request: ProviderRequest, connection: ProviderConnection, apnsID: UUID, loaded: Loaded, finish: @escaping Answer) {
        var loaded = loaded
        let eventLoop = connection.eventLoop
        switch evaluate(request, connection: connection, apnsID: apnsID, loaded: loaded) {
        case .answer(let response):
            finish(response)
        case .store(let notification):
            if let rule = faults.take(notification, headers: request.headers) {
                return applyFault(rule, to: notification, apnsID: apnsID, eventLoop: eventLoop, finish: finish)
            }
            // The answer captures only the ids: capturing the notification would copy it.
            let uniqueID = configuration.environment == .development ? notification.uniqueID : nil
            writer.submit(notification, on: eventLoop) { failure in
                finish(ProviderResponse(apnsID: apnsID, uniqueID: failure == nil ? uniqueID : nil, rejection: failure))
            }
        case .loadKey(let teamID, let keyID):
            directory.loadKey(teamID: teamID, keyID: keyID, on: eventLoop).assumeIsolated().whenComplete { result in
                guard case .success(let key) = result else { return finish(self.storeFailure(apnsID, result)) }
                loaded.key = .some(key)
                self.run(request, connection: connection, apnsID: apnsID, loaded: loaded, finish: finish)
            }
        case .loadDevice(let token):
            directory.loadDevice(token, on: eventLoop).assumeIsolated().whenComplete { result in
                guard case .success(let device) = result else { return finish(self.storeFailure(apnsID, result)) }
                loaded.device = .some(device)
                self.run(request, connection: connection, apnsID: apnsID, loaded: loaded, finish: finish)
            }
        case .loadPolicy(let bundleID):
            directory.loadPolicy(bundleID: bundleID, on: eventLoop).assumeIsolated().whenComplete { result in
                guard case .success(let policy) = result else { return finish(self.storeFailure(apnsID, result)) }
                loaded.policy = policy
                self.run(request, connection: connection, apnsID: apnsID, loaded: loaded, finish: finish)
            }
        }
    }

    /// The answer when a key, device or policy cannot be read: 503 while the store cannot be reached or is held (a
    /// retry may succeed), else 500.
    func storeFailure<T>(_ apnsID: UUID, _ result: Result<T, any Error>) -> ProviderResponse {
        guard case .failure(let error) = result else {
            return ProviderResponse(apnsID: apnsID, rejection: Rejection(.internalServerError, "the store cannot be read"))
        }
        logger.error("store read failed", metadata: ["error": "\(error)"])
        return ProviderResponse(apnsID: apnsID, rejection: .storeFailure(error))
    }

    /// Every rule, in order, using only what is cached or already loaded.
    private func evaluate(_ request: ProviderRequest, connection: ProviderConnection, apnsID: UUID, loaded: Loaded) -> Evaluation {
        do throws(Rejection) {
            if let reason = connection.drainReason { throw Rejection(reason, "the connection is closing") }
            let head = try RequestHead.parse(request.headers)
            let grant: Grant
            switch try authenticate(bearer: head.bearerToken, connection: connection, loaded: loaded) {
            case .granted(let granted): grant = granted
            case .needsKey(let teamID, let keyID): return .loadKey(teamID: teamID, keyID: keyID)
            }
            let pushType = head.effectivePushType
            if request.bodyLength > pushType.maximumPayloadSize {
                throw Rejection(
                    .payloadTooLarge, "payload is \(request.bodyLength) bytes; the limit for \(pushType) is \(pushType.maximumPayloadSize)")
            }
            // One copy of the bytes: Data's generic initializer would first look for a conformance at run time.
            let payload = request.body.withUnsafeReadableBytes { bytes in
                bytes.baseAddress.map { Data(bytes: $0, count: bytes.count) } ?? Data()
            }
            try PayloadCheck.check(payload, pushType: pushType)
            let (topic, bundleID) = try resolveTopic(head, grant: grant)
            guard let device = loaded.device ?? directory.cachedDevice(head.deviceToken) else {
                return .loadDevice(head.deviceToken)
            }
            try checkDevice(device, token: head.deviceToken, topic: topic, bundleID: bundleID, pushType: pushType)
            // A linked device that is offline keeps the notification under its app's policy.
            var offlinePolicy: StoragePolicy?
            if let owner = device?.owner, !hub.isOnline(owner) {
                guard let policy = loaded.policy ?? directory.cachedPolicy(bundleID: bundleID) else {
                    return .loadPolicy(bundleID: bundleID)
                }
                offlinePolicy = policy
            }
            return .store(
                StoredNotification(
                    apnsID: apnsID,
                    uniqueID: APNsID.generate(),
                    deviceToken: head.deviceToken,
                    deviceID: device?.owner,
                    bundleID: bundleID,
                    topic: topic,
                    pushType: pushType,
                    priority: head.effectivePriority,
                    expiration: head.expiration,
                    collapseID: head.collapseID,
                    payload: payload,
                    receivedAt: clock.now(),
                    offlinePolicy: offlinePolicy
                ))
        } catch {
            return .answer(ProviderResponse(apnsID: apnsID, rejection: error, timestamp: error.timestamp))
        }
    }

    enum Authentication {
        case granted(Grant)
        case needsKey(teamID: String, keyID: String)
    }

    func authenticate(bearer: String?, connection: ProviderConnection, loaded: Loaded) throws(Rejection) -> Authentication {
        if let identity = try connection.clientIdentity() {
            if identity.topics.isEmpty {
                throw Rejection(.badCertificate, "the client certificate names no topic")
            }
            if let environment = identity.environment, environment != configuration.environment {
                throw Rejection(.badCertificateEnvironment, "the certificate is for \(environment), this gateway is \(configuration.environment)")
            }
            return .granted(.certificate(identity))
        }
        guard let jwt = bearer else {
            throw Rejection(.missingProviderToken, "send authorization: bearer <provider token>")
        }
        let token = try verifier.parse(jwt, recent: connection.verifiedToken)
        guard let key = loaded.key ?? directory.cachedKey(teamID: token.teamID, keyID: token.keyID) else {
            return .needsKey(teamID: token.teamID, keyID: token.keyID)
        }
        let record = try verifier.check(jwt, token, key: key, recent: &connection.verifiedToken)
        try connection.auth.admit(jwt: jwt, token: token, key: record, environment: configuration.environment, now: clock.now())
        return .granted(.key(record))
    }

    /// The request's topic and the app it addresses, after checking the caller may push there.
    private func resolveTopic(_ head: RequestHead, grant: Grant) throws(Rejection) -> (topic: String, bundleID: String) {
        let pushType = head.effectivePushType
        switch grant {
        case .key(let key):
            guard let topic = head.topic else { throw Rejection(.missingTopic, "send apns-topic: <bundle id>") }
            try Self.checkTopicSyntax(topic)
            let bundleID = pushType.bundleID(fromTopic: topic) ?? topic
            guard key.covers(bundleID: bundleID) else {
                throw Rejection(.topicDisallowed, "key \(key.keyID) may not push to \(bundleID)")
            }
            return (topic, bundleID)
        case .certificate(let identity):
            // Live Activities take token-based connections only; APNs has been seen to answer a certificate
            // connection's push TopicDisallowed (docs/provider-api.md).
            guard pushType != .liveActivity else {
                throw Rejection(.topicDisallowed, "Live Activity pushes need token-based authentication, not a certificate")
            }
            let topic: String
            if let requested = head.topic {
                topic = requested
            } else if identity.topics.count == 1 {
                topic = identity.topics[0] + pushType.topicSuffix
            } else {
                throw Rejection(.missingTopic, "the certificate names several topics; send apns-topic")
            }
            try Self.checkTopicSyntax(topic)
            let bundleID = pushType.bundleID(fromTopic: topic) ?? topic
            guard identity.topics.contains(bundleID) else {
                throw Rejection(.topicDisallowed, "the certificate does not cover \(bundleID)")
            }
            return (topic, bundleID)
        }
    }

    private static func checkTopicSyntax(_ topic: String) throws(Rejection) {
        guard TopicSyntax.isValid(topic) else {
            throw Rejection(.badTopic, "apns-topic must be a bundle id such as com.example.app")
        }
    }

    private func checkDevice(
        _ device: DeviceRecord?,
        token: DeviceToken,
        topic: String,
        bundleID: String,
        pushType: PushType
    ) throws(Rejection) {
        // A web push subscription's token is an endpoint's, not an APNs device token.
        guard let device, device.environment == configuration.environment, device.kind != .webPush else {
            throw Rejection(.badDeviceToken, "no device with this token in the \(configuration.environment) environment")
        }
        if let retiredAt = device.retiredAt {
            let reason: APNsReason = device.retirement == .expired ? .expiredToken : .unregistered
            let milliseconds = Int64(exactly: (retiredAt.timeIntervalSince1970 * 1000).rounded(.down)) ?? 0
            throw Rejection(reason, "the token stopped being valid", timestamp: milliseconds)
        }
        // resolveTopic took the push type's suffix off `topic` to get `bundleID`, if it was there: the lengths say
        // whether it was (comparing with a concatenation cost a string per notification).
        guard device.topic == bundleID, topic.utf8.count == bundleID.utf8.count + pushType.topicSuffix.utf8.count else {
            throw Rejection(.deviceTokenNotForTopic, "the device token belongs to another app")
        }
        // A push-to-start or activity token is the `BUNDLE.push-type.liveactivity` topic's. A `liveactivity` push to
        // the app's own token is accepted, as APNs accepts it, and the device drops it (docs/provider-api.md).
        if device.kind.isLiveActivity, pushType != .liveActivity {
            throw Rejection(.deviceTokenNotForTopic, "a Live Activity token takes liveactivity pushes only")
        }
        guard rateLimiter.admit(token) else {
            throw Rejection(.tooManyRequests, "too many notifications for one device token")
        }
    }
}
