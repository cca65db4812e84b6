public import Crypto

public import struct Foundation.Data

/// A subscriber's public keys, as a browser's `PushSubscription` gives them to the site (`keys.p256dh`, `keys.auth`).
public struct WebPushSubscriptionKeys: Sendable, Hashable {
    /// The subscriber's P-256 public key, uncompressed (65 bytes).
    public var p256dh: Data
    /// The 16-byte authentication secret.
    public var auth: Data

    public init(p256dh: Data, auth: Data) {
        self.p256dh = p256dh
        self.auth = auth
    }
}

/// A subscriber's secret side: the private key of ``WebPushSubscriptionKeys/p256dh`` and the auth secret. Whoever holds
/// it can read the subscription's messages (``WebPushEncryption/decrypt(_:with:)``).
public struct WebPushKeys: Sendable {
    public var privateKey: P256.KeyAgreement.PrivateKey
    public var auth: Data

    /// Fresh keys, as a browser makes them when a page subscribes.
    public init() {
        privateKey = P256.KeyAgreement.PrivateKey()
        auth = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    }

    public init(privateKey: P256.KeyAgreement.PrivateKey, auth: Data) {
        self.privateKey = privateKey
        self.auth = auth
    }

    /// Keys kept as bytes: the private key's raw 32 bytes and the auth secret; nil when they are not a P-256 key.
    public init?(rawPrivateKey: Data, auth: Data) {
        guard let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: rawPrivateKey), auth.count == 16 else { return nil }
        self.init(privateKey: privateKey, auth: auth)
    }

    /// The private key's raw 32 bytes, for keeping.
    public var rawPrivateKey: Data { privateKey.rawRepresentation }

    /// What the subscriber hands out.
    public var subscription: WebPushSubscriptionKeys {
        WebPushSubscriptionKeys(p256dh: privateKey.publicKey.x963Representation, auth: auth)
    }
}

/// The JSON a page's `PushSubscription.toJSON()` gives its server: `{"endpoint":…,"expirationTime":null,
/// "keys":{"p256dh":…,"auth":…}}`, keys in base64url. What `herald webpush subscribe` prints and `herald webpush send`
/// reads.
public struct PushSubscriptionJSON: Sendable, Hashable {
    public var endpoint: String
    public var keys: WebPushSubscriptionKeys

    public init(endpoint: String, keys: WebPushSubscriptionKeys) {
        self.endpoint = endpoint
        self.keys = keys
    }

    /// What is wrong with a subscription's JSON, for a person.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses the JSON; `expirationTime` and unknown members are ignored.
    ///
    /// - Throws: ``Failure`` naming the member that is missing or malformed.
    public static func parse(_ data: Data) throws(Failure) -> PushSubscriptionJSON {
        guard let json = try? JSONValue.parse(data), case .object = json else {
            throw Failure(description: "a subscription is a JSON object {\"endpoint\":…,\"keys\":{\"p256dh\":…,\"auth\":…}}")
        }
        guard let endpoint = json["endpoint"]?.stringValue, endpoint.hasPrefix("https://") || endpoint.hasPrefix("http://") else {
            throw Failure(description: "the subscription has no \"endpoint\" URL")
        }
        guard let p256dh = json["keys"]?["p256dh"]?.stringValue.flatMap(Base64URL.decode), p256dh.count == 65, p256dh.first == 4
        else {
            throw Failure(description: "keys.p256dh must be an uncompressed P-256 public key in base64url (65 bytes)")
        }
        guard let auth = json["keys"]?["auth"]?.stringValue.flatMap(Base64URL.decode), auth.count == 16 else {
            throw Failure(description: "keys.auth must be a 16-byte secret in base64url")
        }
        return PushSubscriptionJSON(endpoint: endpoint, keys: WebPushSubscriptionKeys(p256dh: p256dh, auth: auth))
    }

    public var json: JSONValue {
        .object([
            "endpoint": .string(endpoint), "expirationTime": .null,
            "keys": .object(["p256dh": .string(Base64URL.encode(keys.p256dh)), "auth": .string(Base64URL.encode(keys.auth))]),
        ])
    }
}
