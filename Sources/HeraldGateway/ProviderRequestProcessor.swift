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
final class ProviderRequestProcessor: Sendable {
    /// What the authenticated caller may push to.
    private enum Grant {
        case key(ProviderKey)
        case certificate(ClientIdentity)
    }

    private let configuration: GatewayConfiguration
    private let directory: Directory
    private let verifier: TokenVerifier
    private let rateLimiter: DeviceRateLimiter
    private let writer: NotificationWriter
    private let clock: any WallClock
    private let metrics: GatewayMetrics
    private let logger: Logger

    init(
        configuration: GatewayConfiguration,
        directory: Directory,
        writer: NotificationWriter,
        clock: any WallClock,
        metrics: GatewayMetrics,
        logger: Logger
    ) {
        self.configuration = configuration
        self.directory = directory
        verifier = TokenVerifier(directory: directory, cacheLimit: configuration.verifiedTokenCacheLimit)
        rateLimiter = DeviceRateLimiter(
            ratePerSecond: configuration.deviceTokenRatePerSecond,
            burst: configuration.deviceTokenBurst
        )
        self.writer = writer
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// Answers `request`; must be called on `connection`'s event loop, and the future completes there.
    func process(_ request: ProviderRequest, on connection: ProviderConnection) -> EventLoopFuture<ProviderResponse> {
        let start = NIODeadline.now()
        let eventLoop = connection.eventLoop
        var apnsID = APNsID.generate()
        let answer: EventLoopFuture<ProviderResponse>
        if let reason = connection.drainReason {
            answer = eventLoop.makeSucceededFuture(ProviderResponse(apnsID: apnsID, rejection: Rejection(reason, "the connection is closing")))
        } else {
            do {
                let head = try RequestHead.parse(request.headers)
                apnsID = head.apnsID ?? apnsID
                answer = accept(head, request, apnsID: apnsID, connection: connection)
            } catch {
                answer = eventLoop.makeSucceededFuture(ProviderResponse(apnsID: apnsID, rejection: error))
            }
        }
        let id = apnsID
        return answer.assumeIsolated().flatMapErrorThrowing { error in
            // Rejections travel as failures through the chain; anything else is our fault.
            if let rejection = error as? Rejection {
                return ProviderResponse(apnsID: id, rejection: rejection)
            }
            if let gone = error as? GoneRejection {
                return ProviderResponse(apnsID: id, rejection: gone.rejection, timestamp: gone.timestamp)
            }
            self.logger.error("request failed unexpectedly", metadata: ["error": "\(error)"])
            return ProviderResponse(apnsID: id, rejection: Rejection(.internalServerError))
        }.map { response in
            connection.record(response.rejection)
            self.metrics.record(status: response.status, reason: response.rejection?.reason, since: start)
            if let rejection = response.rejection {
                self.logger.debug("rejected", metadata: ["apns-id": "\(id)", "reason": "\(rejection)"])
            }
            return response
        }.nonisolated()
    }

    private func accept(
        _ head: RequestHead,
        _ request: ProviderRequest,
        apnsID: UUID,
        connection: ProviderConnection
    ) -> EventLoopFuture<ProviderResponse> {
        authenticate(head, connection: connection).assumeIsolated().flatMapThrowing { grant in
            let pushType = head.effectivePushType
            if request.bodyLength > pushType.maximumPayloadSize {
                throw Rejection(.payloadTooLarge, "payload is \(request.bodyLength) bytes; the limit for \(pushType) is \(pushType.maximumPayloadSize)")
            }
            let payload = Data(request.body.readableBytesView)
            _ = try PayloadCheck.check(payload, pushType: pushType)
            let (topic, bundleID) = try self.resolveTopic(head, grant: grant)
            return StoredNotification(
                apnsID: apnsID,
                uniqueID: APNsID.generate(),
                deviceToken: head.deviceToken,
                bundleID: bundleID,
                topic: topic,
                pushType: pushType,
                priority: head.effectivePriority,
                expiration: head.expiration,
                collapseID: head.collapseID,
                payload: payload,
                receivedAt: self.clock.now()
            )
        }.flatMap { notification in
            self.directory.device(notification.deviceToken, on: connection.eventLoop).assumeIsolated().flatMapThrowing { device in
                try self.checkDevice(device, for: notification)
                return notification
            }.nonisolated()
        }.flatMap { notification in
            self.writer.submit(notification, on: connection.eventLoop).map {
                ProviderResponse(
                    apnsID: apnsID,
                    uniqueID: self.configuration.environment == .development ? notification.uniqueID : nil
                )
            }
        }.nonisolated()
    }

    private func authenticate(_ head: RequestHead, connection: ProviderConnection) -> EventLoopFuture<Grant> {
        let eventLoop = connection.eventLoop
        do {
            if let identity = try connection.clientIdentity() {
                if identity.topics.isEmpty {
                    throw Rejection(.badCertificate, "the client certificate names no topic")
                }
                if let environment = identity.environment, environment != configuration.environment {
                    throw Rejection(.badCertificateEnvironment, "the certificate is for \(environment), this gateway is \(configuration.environment)")
                }
                return eventLoop.makeSucceededFuture(.certificate(identity))
            }
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        guard let jwt = head.bearerToken else {
            return eventLoop.makeFailedFuture(Rejection(.missingProviderToken, "send authorization: bearer <provider token>"))
        }
        return verifier.verify(jwt, on: eventLoop).assumeIsolated().flatMapThrowing { token, key in
            try connection.auth.admit(jwt: jwt, token: token, key: key, environment: self.configuration.environment, now: self.clock.now())
            return Grant.key(key)
        }.nonisolated()
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
        let allowed = topic.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard allowed, topic.utf8.count <= 255, !topic.hasPrefix("."), !topic.hasSuffix(".") else {
            throw Rejection(.badTopic, "apns-topic must be a bundle id such as com.example.app")
        }
    }

    private func checkDevice(_ device: DeviceRecord?, for notification: StoredNotification) throws {
        guard let device, device.environment == configuration.environment else {
            throw Rejection(.badDeviceToken, "no device with this token in the \(configuration.environment) environment")
        }
        if let retiredAt = device.retiredAt {
            let reason: APNsReason = device.retirement == .expired ? .expiredToken : .unregistered
            throw GoneRejection(rejection: Rejection(reason), timestamp: Int64(retiredAt.timeIntervalSince1970 * 1000))
        }
        guard device.topic == notification.bundleID, notification.topic == device.topic + notification.pushType.topicSuffix else {
            throw Rejection(.deviceTokenNotForTopic, "the device token belongs to another app")
        }
        guard rateLimiter.admit(notification.deviceToken) else {
            throw Rejection(.tooManyRequests, "too many notifications for one device token")
        }
    }
}

/// A 410 answer: the token is gone, and since when.
struct GoneRejection: Error {
    var rejection: Rejection
    var timestamp: Int64
}
