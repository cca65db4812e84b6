import Foundation
import HeraldStore
import HeraldWire
import Logging
import NIOCore
import Synchronization

/// The push service's side of RFC 8030 as Apple's `web.push.apple.com` serves it: `POST /push/TOKEN` with an
/// `aes128gcm` body, VAPID (RFC 8292) under Apple's rules, answered 201 once the message is committed, or Apple's
/// status and `{"reason":…}` (docs/web-push.md). Transport-free: the HTTP/1.1 and HTTP/2 handlers call
/// ``handle(_:on:answer:)``.
final class WebPushService: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// The host (and port) the request was addressed to: `:authority`, or `Host` on HTTP/1.1.
        var authority: String
        /// Header fields, names in lowercase.
        var headers: [(name: String, value: String)]
        var body: Data

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: Data?
    }

    typealias Answer = (Response) -> Void

    /// Where a subscription's endpoint lives: `/push/` and the token in hex.
    static let pathPrefix = "/push/"

    private let configuration: GatewayConfiguration
    private let directory: Directory
    private let writer: NotificationWriter
    private let hub: DeviceHub
    private let clock: any WallClock
    private let metrics: GatewayMetrics
    private let events: DeliveryEvents
    private let refusals: WebPushRefusals
    private let rateLimiter: DeviceRateLimiter
    private let logger: Logger
    /// JWTs whose signature verified, so a sender that reuses its JWT (as it should, for up to a day) costs one
    /// signature check.
    private let verified = Mutex<[String: VAPIDToken]>([:])
    private static let verifiedLimit = 10_000
    /// How many messages a subscriber away from the gateway has kept for it (Apple keeps "a limited number").
    static let storageCap = 100
    private let scheme: String
    /// The port the Web Push port is bound to: an `aud` must name it (a sender chooses the Host it sends, so a JWT made
    /// for another push service on another port cannot pass here by naming that service's host).
    private let boundPort: Mutex<Int?> = Mutex(nil)
    /// The longest `Authorization` header taken: a VAPID header is about 400 bytes.
    static let authorizationLimit = 2048

    init(
        configuration: GatewayConfiguration, directory: Directory, writer: NotificationWriter, hub: DeviceHub, clock: any WallClock,
        metrics: GatewayMetrics, events: DeliveryEvents, refusals: WebPushRefusals, logger: Logger
    ) {
        self.configuration = configuration
        self.directory = directory
        self.writer = writer
        self.hub = hub
        self.clock = clock
        self.metrics = metrics
        self.events = events
        self.refusals = refusals
        self.logger = logger
        rateLimiter = DeviceRateLimiter(ratePerSecond: configuration.deviceTokenRatePerSecond, burst: configuration.deviceTokenBurst)
        scheme = configuration.plaintext ? "http://" : "https://"
    }

    /// Called once the port is bound.
    func listening(on port: Int) { boundPort.withLock { $0 = port } }

    /// Answers `request`; runs on `eventLoop` and calls `answer` there.
    func handle(_ request: Request, on eventLoop: any EventLoop, answer: @escaping Answer) {
        let apnsID = APNsID.generate()
        let refuse = { (rejection: Rejection, subject: String?, token: DeviceToken?) in
            self.metrics.recordWebPush(refused: rejection.reason)
            self.refusals.note(rejection, subject: subject, token: token, at: self.clock.now(), events: self.events)
            answer(Self.refusal(rejection, apnsID: apnsID))
        }
        guard request.method == "POST" else {
            return refuse(Rejection(.methodNotAllowed, "a push message is sent with POST"), nil, nil)
        }
        let path = request.path.prefix { $0 != "?" }
        guard path.hasPrefix(Self.pathPrefix), let token = DeviceToken(hex: path.dropFirst(Self.pathPrefix.count)) else {
            return refuse(Rejection(.badPath, "a push endpoint is \(Self.pathPrefix)TOKEN, as a subscription gives it"), nil, nil)
        }
        let proceed = { (device: DeviceRecord?) in
            var subject: String?
            do throws(Rejection) {
                let notification = try self.admit(request, token: token, device: device, apnsID: apnsID, subject: &subject)
                self.writer.submit(notification, on: eventLoop) { [subject] rejection in
                    if let rejection { return refuse(rejection, subject, token) }
                    self.metrics.recordWebPush(refused: nil)
                    answer(self.created(notification))
                }
            } catch {
                refuse(error, subject, token)
            }
        }
        if let cached = directory.cachedDevice(token) { return proceed(cached) }
        directory.loadDevice(token, on: eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let device): proceed(device)
            case .failure: refuse(Rejection(.internalServerError, "the store cannot be read"), nil, token)
            }
        }
    }

    /// The request's checks in Apple's order, then the message to store; `subject` is the VAPID `sub` once read.
    private func admit(
        _ request: Request, token: DeviceToken, device: DeviceRecord?, apnsID: UUID, subject: inout String?
    ) throws(Rejection) -> StoredNotification {
        guard let device, device.kind == .webPush, device.environment == configuration.environment else {
            throw Rejection(.badPath, "no subscription has this endpoint")
        }
        if device.retiredAt != nil { throw Rejection(.unregistered, "the subscription was removed") }
        let now = clock.now()
        let vapid = try checkVAPID(request, device: device, now: now, subject: &subject)
        let head = try WebPushHead.parse(header: request.header, body: request.body)
        guard rateLimiter.admit(token) else { throw Rejection(.tooManyRequests, "too many messages for one subscription") }
        var offlinePolicy: StoragePolicy?
        if let owner = device.owner, !hub.isOnline(owner) { offlinePolicy = .all(cap: Self.storageCap) }
        let notification = StoredNotification(
            apnsID: apnsID, uniqueID: APNsID.generate(), deviceToken: token, deviceID: device.owner, bundleID: device.topic, topic: device.topic,
            pushType: .webPush, priority: head.urgency.priority,
            expiration: head.ttl == 0 ? 0 : Int64(now.timeIntervalSince1970) + head.ttl, collapseID: head.topic, payload: request.body,
            receivedAt: now, offlinePolicy: offlinePolicy,
            webPush: WebPushDetails(urgency: head.urgency, ttl: head.ttl, subject: vapid.subject))
        return notification
    }

    /// The VAPID token, its signature checked once per JWT and its claims every time (`exp` passes).
    private func checkVAPID(_ request: Request, device: DeviceRecord, now: Date, subject: inout String?) throws(Rejection) -> VAPIDToken {
        guard let authorization = request.header("authorization") else {
            throw Rejection(.badAuthorizationHeader, "send Authorization: vapid t=JWT, k=KEY (RFC 8292)")
        }
        guard authorization.utf8.count <= Self.authorizationLimit else {
            throw Rejection(.badAuthorizationHeader, "the Authorization header is over \(Self.authorizationLimit) bytes; a VAPID one is about 400")
        }
        let origin = try audience(of: request)
        if let known = verified.withLock({ $0[authorization] }) {
            subject = known.subject
            try known.checkClaims(origin: origin, applicationServerKey: device.applicationServerKey, now: now)
            return known
        }
        let token = try VAPIDToken.parse(authorization: authorization)
        subject = token.subject
        try token.verify()
        try token.checkClaims(origin: origin, applicationServerKey: device.applicationServerKey, now: now)
        // Only a token that passed every check is kept, so the cache holds what senders really use.
        verified.withLock { cache in
            if cache.count >= Self.verifiedLimit { cache.removeAll(keepingCapacity: true) }
            cache[authorization] = token
        }
        return token
    }

    /// The push service's origin as the request addressed it, which `aud` must be: its scheme, host and port, the port
    /// this one (written or implied by the scheme).
    private func audience(of request: Request) throws(Rejection) -> String {
        let authority = request.authority
        let port: Int? =
            if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
                Int(authority[authority.index(after: colon)...])
            } else {
                scheme == "https://" ? 443 : 80
            }
        guard let bound = boundPort.withLock({ $0 }), port == bound else {
            throw Rejection(.badPath, "the request's :authority (Host) \(authority) does not name this push service's port")
        }
        return scheme + authority
    }

    /// 201 Created: the message's resource in `Location` (RFC 8030 §5), its `apns-id` as Apple sends it, and the TTL
    /// kept.
    private func created(_ notification: StoredNotification) -> Response {
        Response(
            status: 201,
            headers: [
                ("apns-id", APNsID.format(notification.apnsID)),
                ("location", "/message/\(APNsID.format(notification.uniqueID))"),
                ("ttl", "\(notification.webPush?.ttl ?? 0)"),
            ],
            body: nil)
    }

    private static func refusal(_ rejection: Rejection, apnsID: UUID) -> Response {
        var body = Data(#"{"reason":""#.utf8)
        body.append(contentsOf: rejection.reason.rawValue.utf8)
        body.append(contentsOf: #""}"#.utf8)
        return Response(
            status: rejection.reason.status, headers: [("apns-id", APNsID.format(apnsID)), ("content-type", "application/json")], body: body)
    }
}
