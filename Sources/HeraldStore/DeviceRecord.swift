public import Foundation
public import HeraldWire

/// One app on one device: the token that addresses it, the app's bundle id, the device it belongs to and
/// whether it still takes pushes.
public struct DeviceRecord: Sendable, Hashable {
    /// Why a token no longer takes notifications.
    public enum Retirement: String, Sendable, Hashable, CaseIterable {
        /// The app was removed from the device (410 Unregistered).
        case unregistered
        /// The token was replaced or timed out (410 ExpiredToken).
        case expired
    }

    public var token: DeviceToken
    /// The app's bundle id.
    public var topic: String
    public var environment: APNsEnvironment
    public var createdAt: Date
    public var retiredAt: Date?
    public var retirement: Retirement?
    /// The linked device (``LinkedDevice/id``) the token belongs to; nil for a virtual device from
    /// `herald tokens issue`, which never comes online.
    public var owner: String?
    /// The app's own token, its push-to-start token or a Live Activity's token.
    public var kind: TokenKind
    /// The Live Activity an ``TokenKind/activity`` token belongs to; for a ``TokenKind/webPush`` subscription of a
    /// linked subscriber, the subscriber's own name for it (Firefox's channel id, a UnifiedPush app's token); nil for
    /// the other kinds.
    public var activityID: String?
    /// The key a ``TokenKind/webPush`` subscription was made with (`applicationServerKey`, 65 bytes): its messages
    /// must be signed by it. Nil for the other kinds, and for a subscription made without one.
    public var applicationServerKey: Data?

    public init(
        token: DeviceToken,
        topic: String,
        environment: APNsEnvironment,
        createdAt: Date,
        retiredAt: Date? = nil,
        retirement: Retirement? = nil,
        owner: String? = nil,
        kind: TokenKind = .app,
        activityID: String? = nil,
        applicationServerKey: Data? = nil
    ) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.createdAt = createdAt
        self.retiredAt = retiredAt
        self.retirement = retirement
        self.owner = owner
        self.kind = kind
        self.activityID = activityID
        self.applicationServerKey = applicationServerKey
    }
}
