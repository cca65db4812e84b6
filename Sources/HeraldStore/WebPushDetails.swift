import Foundation
public import HeraldWire

/// What a Web Push message's request said besides its body (RFC 8030), kept with the message: the delivery log shows
/// it, and a linked browser gets the urgency. Its `Topic` is the notification's ``StoredNotification/collapseID``.
public struct WebPushDetails: Sendable, Hashable {
    public var urgency: WebPushHead.Urgency
    /// The `TTL` as taken (at most ``WebPushHead/maximumTTL``).
    public var ttl: Int64
    /// The sender's VAPID `sub` claim (`mailto:` or `https:`).
    public var subject: String?

    public init(urgency: WebPushHead.Urgency, ttl: Int64, subject: String?) {
        self.urgency = urgency
        self.ttl = ttl
        self.subject = subject
    }

    /// The stored form: `{"subject":…,"ttl":…,"urgency":…}`, written member by member (one string per message stored).
    public var json: String {
        var writer = JSONWriter(capacity: 64 + (subject?.utf8.count ?? 0))
        writer.writeRaw(#"{"#.utf8)
        if let subject {
            writer.writeKey("subject")
            writer.writeString(subject)
            writer.writeRaw(#","#.utf8)
        }
        writer.writeKey("ttl")
        writer.write(.integer(ttl))
        writer.writeRaw(#","#.utf8)
        writer.writeKey("urgency")
        writer.writeString(urgency.rawValue)
        writer.writeRaw(#"}"#.utf8)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Reads the stored form; nil when it is not one.
    public init?(json: String) {
        guard let value = try? JSONValue.parse(Data(json.utf8)), let urgency = value["urgency"]?.stringValue,
            let ttl = value["ttl"]?.integerValue
        else { return nil }
        self.init(urgency: WebPushHead.Urgency(rawValue: urgency), ttl: ttl, subject: value["subject"]?.stringValue)
    }
}
