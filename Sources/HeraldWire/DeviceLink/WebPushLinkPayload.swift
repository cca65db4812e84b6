public import Foundation

/// A web push message as the device link carries it: the link's payload is always a JSON object, and a web push body
/// is RFC 8291 ciphertext (binary), so the gateway wraps it, and the device unwraps it before handing the body on
/// unchanged (to a UnifiedPush connector, say).
///
/// ```json
/// {"webPush":{"body":"<base64url of the encrypted body>","urgency":"high","ttl":60,"topic":"scores"}}
/// ```
///
/// ```swift
/// let payload = WebPushLinkPayload(body: ciphertext, urgency: .high, ttl: 60, topic: nil).encoded()
/// let message = WebPushLinkPayload(payload: payload)  // the same, back
/// ```
public struct WebPushLinkPayload: Sendable, Hashable {
    /// The request body as the application server sent it: ciphertext, never decrypted on the way.
    public var body: Data
    /// RFC 8030 `Urgency`.
    public var urgency: WebPushHead.Urgency
    /// RFC 8030 `TTL` in seconds, as the push service took it.
    public var ttl: Int64
    /// RFC 8030 `Topic`: a message with the same topic replaces this one while it is stored.
    public var topic: String?

    public init(body: Data, urgency: WebPushHead.Urgency, ttl: Int64, topic: String?) {
        self.body = body
        self.urgency = urgency
        self.ttl = ttl
        self.topic = topic
    }

    /// Reads a wrapped message; nil when `payload` is not one.
    public init?(payload: Data) {
        guard let message = try? JSONValue.parse(payload), let fields = message["webPush"]?.objectValue,
            let body = fields["body"]?.stringValue.flatMap(Base64URL.decode)
        else { return nil }
        self.body = body
        urgency = fields["urgency"]?.stringValue.map(WebPushHead.Urgency.init(rawValue:)) ?? .normal
        ttl = fields["ttl"]?.integerValue ?? 0
        topic = fields["topic"]?.stringValue
    }

    /// The wrapped form, a JSON object.
    public func encoded() -> Data {
        var fields: [String: JSONValue] = [
            "body": .string(Base64URL.encode(body)), "urgency": .string(urgency.rawValue), "ttl": .integer(ttl),
        ]
        if let topic { fields["topic"] = .string(topic) }
        return JSONValue.object(["webPush": .object(fields)]).encoded()
    }
}
