/// A reason string APNs puts in an error response body (`{"reason":"…"}`) or in GOAWAY debug data.
///
/// Reasons form an open vocabulary: an unknown string round-trips unchanged, so a client built against
/// this type never fails on a reason Apple adds later.
///
/// ```swift
/// let reason = APNsReason(rawValue: "BadDeviceToken")
/// reason.status  // 400
/// ```
public struct APNsReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The HTTP status APNs answers with for this reason; 400 for reasons it does not know.
    public var status: Int {
        Self.statusTable[self] ?? 400
    }

    /// Whether a client may send the same request again later.
    ///
    /// Apple tells providers never to retry these; 429 and 5xx deserve a back-off and a retry.
    public var isRetryable: Bool {
        status == 429 || status >= 500
    }

    /// Whether APNs counts this reason as a connection error (a 410 is not one).
    public var countsAsConnectionError: Bool {
        status != 410
    }
}

extension APNsReason {
    // 400
    public static let badCollapseID = APNsReason(rawValue: "BadCollapseId")
    public static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    public static let badMessageID = APNsReason(rawValue: "BadMessageId")
    public static let badPriority = APNsReason(rawValue: "BadPriority")
    public static let badTopic = APNsReason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    public static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    public static let missingTopic = APNsReason(rawValue: "MissingTopic")
    public static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")
    // 400, the channel management API and broadcasts (iOS 18)
    public static let missingChannelID = APNsReason(rawValue: "MissingChannelId")
    public static let badChannelID = APNsReason(rawValue: "BadChannelId")
    public static let channelNotRegistered = APNsReason(rawValue: "ChannelNotRegistered")
    /// The app has as many channels as APNs allows (10,000 per environment).
    public static let cannotCreateChannelConfig = APNsReason(rawValue: "CannotCreateChannelConfig")
    /// A JSON attribute the request does not take.
    public static let badRequestParams = APNsReason(rawValue: "BadRequestParams")
    /// A body that is not JSON.
    public static let badRequestPayload = APNsReason(rawValue: "BadRequestPayload")
    public static let missingPushType = APNsReason(rawValue: "MissingPushType")
    /// A channel's creation without `message-storage-policy`: observed from APNs, not documented.
    public static let missingChannelQueueSize = APNsReason(rawValue: "MissingChannelQueueSize")
    /// Herald's reason for a body that is not a JSON object with an `aps` dictionary of the right types.
    /// Apple documents no reason for a malformed payload; this one keeps the 400 and says what is wrong.
    public static let badPayload = APNsReason(rawValue: "BadPayload")
    // 400, Web Push (web.push.apple.com; docs/web-push.md)
    /// `TTL` missing or not a number of seconds.
    public static let badTTL = APNsReason(rawValue: "BadTtl")
    /// `Urgency` other than very-low, low, normal or high.
    public static let badUrgency = APNsReason(rawValue: "BadUrgency")
    /// A body not encrypted as RFC 8291 says (no or another `Content-Encoding`).
    public static let badWebPushRequest = APNsReason(rawValue: "BadWebPushRequest")
    /// `Topic` longer than 32 characters or outside the base64url alphabet.
    public static let badWebPushTopic = APNsReason(rawValue: "BadWebPushTopic")
    /// The request's VAPID key is not the one the subscription was made with (`applicationServerKey`).
    public static let vapidPKHashMismatch = APNsReason(rawValue: "VapidPkHashMismatch")
    // 403
    public static let badCertificate = APNsReason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    public static let forbidden = APNsReason(rawValue: "Forbidden")
    public static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIDInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIDInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")
    /// The channel management API: the provider token's key does not cover the bundle id in the path.
    public static let topicMismatch = APNsReason(rawValue: "TopicMismatch")
    /// Web Push: the `Authorization` header is missing or not `vapid t=…, k=…`.
    public static let badAuthorizationHeader = APNsReason(rawValue: "BadAuthorizationHeader")
    /// Web Push: the VAPID JWT is malformed, signed by another key, or its `aud`, `exp` or `sub` is refused.
    public static let badJWTToken = APNsReason(rawValue: "BadJwtToken")
    /// Web Push: `k=` is not a P-256 public key in base64url.
    public static let badVAPIDPublicKey = APNsReason(rawValue: "BadVapidPublicKey")
    // 404, 405
    public static let badPath = APNsReason(rawValue: "BadPath")
    public static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    // 410
    public static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    public static let unregistered = APNsReason(rawValue: "Unregistered")
    // 413
    public static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")
    // 429
    public static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    // 500, 503
    public static let internalServerError = APNsReason(rawValue: "InternalServerError")
    public static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    public static let shutdown = APNsReason(rawValue: "Shutdown")

    /// The one table of reason → HTTP status; the gateway renders from it and clients parse with it.
    public static let statusTable: [APNsReason: Int] = [
        .badCollapseID: 400, .badDeviceToken: 400, .badExpirationDate: 400, .badMessageID: 400,
        .badPriority: 400, .badTopic: 400, .deviceTokenNotForTopic: 400, .duplicateHeaders: 400,
        .idleTimeout: 400, .invalidPushType: 400, .missingDeviceToken: 400, .missingTopic: 400,
        .payloadEmpty: 400, .topicDisallowed: 400, .badPayload: 400,
        .missingChannelID: 400, .badChannelID: 400, .channelNotRegistered: 400, .cannotCreateChannelConfig: 400, .badRequestParams: 400,
        .badRequestPayload: 400, .missingPushType: 400, .missingChannelQueueSize: 400,
        .badTTL: 400, .badUrgency: 400, .badWebPushRequest: 400, .badWebPushTopic: 400, .vapidPKHashMismatch: 400,
        .badCertificate: 403, .topicMismatch: 403, .badCertificateEnvironment: 403, .expiredProviderToken: 403,
        .forbidden: 403, .invalidProviderToken: 403, .missingProviderToken: 403,
        .unrelatedKeyIDInToken: 403, .badEnvironmentKeyIDInToken: 403,
        .badAuthorizationHeader: 403, .badJWTToken: 403, .badVAPIDPublicKey: 403,
        .badPath: 404,
        .methodNotAllowed: 405,
        .expiredToken: 410, .unregistered: 410,
        .payloadTooLarge: 413,
        .tooManyProviderTokenUpdates: 429, .tooManyRequests: 429,
        .internalServerError: 500,
        .serviceUnavailable: 503, .shutdown: 503,
    ]
}
