public import struct Foundation.Data

/// What an RFC 8030 push request says besides its body: how long to keep the message (`TTL`), how urgent it is
/// (`Urgency`), what it replaces (`Topic`) and how the body is encoded (`Content-Encoding`).
public struct WebPushHead: Sendable, Hashable {
    /// Seconds the push service keeps an undelivered message; 0 = deliver now or never.
    public var ttl: Int64
    public var urgency: Urgency
    /// A message waiting with the same topic for the same subscription is replaced.
    public var topic: String?

    public init(ttl: Int64, urgency: Urgency = .normal, topic: String? = nil) {
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
    }

    /// RFC 8030 §5.3: `very-low`, `low`, `normal` (the default) or `high`.
    public struct Urgency: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let veryLow = Urgency(rawValue: "very-low")
        public static let low = Urgency(rawValue: "low")
        public static let normal = Urgency(rawValue: "normal")
        public static let high = Urgency(rawValue: "high")
        public static let all: [Urgency] = [.veryLow, .low, .normal, .high]

        /// The APNs priority a message of this urgency is delivered with: high at once (10), the others as APNs
        /// delivers power-considerate pushes (5).
        public var priority: Priority { self == .high ? .immediate : .powerConsiderate }
    }

    /// The longest `TTL` Herald keeps a message for: APNs' storage period, 30 days.
    public static let maximumTTL: Int64 = 30 * 24 * 3600

    /// The largest body, in bytes (RFC 8030 §7.2 asks a push service to take at least 4,096).
    public static let maximumBodySize = 4096

    /// Reads the head from header fields (names in lowercase).
    ///
    /// - Throws: ``Rejection`` naming the field: a missing or malformed `TTL`, an unknown `Urgency`, a `Topic` longer
    ///   than 32 characters or outside the base64url alphabet, a body over 4,096 bytes, a `Content-Encoding` other than
    ///   `aes128gcm` or a body that does not start with its header.
    public static func parse(header: (String) -> String?, body: Data) throws(Rejection) -> WebPushHead {
        guard let ttlText = header("ttl") else {
            throw Rejection(.badTTL, "send a TTL header: the seconds to keep the message when the subscriber is away (0 = now or never)")
        }
        guard let ttl = Int64(ttlText.trimmingSpaces), ttl >= 0 else {
            throw Rejection(.badTTL, "TTL must be a whole number of seconds, 0 or more")
        }
        var urgency = Urgency.normal
        if let sent = header("urgency") {
            let trimmed = sent.trimmingSpaces
            // The header as senders write it costs no new string.
            urgency = Urgency.all.first { $0.rawValue == trimmed } ?? Urgency(rawValue: trimmed.lowercased())
            guard Urgency.all.contains(urgency) else {
                throw Rejection(.badUrgency, "Urgency must be very-low, low, normal or high")
            }
        }
        let topic = header("topic")
        if let topic {
            guard !topic.isEmpty, topic.utf8.count <= 32, topic.utf8.allSatisfy(Self.isBase64URL) else {
                throw Rejection(.badWebPushTopic, "Topic must be 1 to 32 characters of the base64url alphabet (A–Z a–z 0–9 - _)")
            }
            // Apple decodes the topic as base64url: a length that leaves 1 over 4 decodes to nothing and is refused.
            guard topic.utf8.count % 4 != 1 else {
                throw Rejection(
                    .badWebPushTopic,
                    "Topic is decoded as base64url, and \(topic.utf8.count) characters are not base64url's length (Apple refuses 5, 9, 13…)")
            }
        }
        guard body.count <= maximumBodySize else {
            throw Rejection(.payloadTooLarge, "the body is \(body.count) bytes; the most is \(maximumBodySize)")
        }
        if !body.isEmpty {
            guard let encoding = header("content-encoding") else {
                throw Rejection(.badWebPushRequest, "a message with a body needs Content-Encoding: aes128gcm (RFC 8291)")
            }
            let trimmed = encoding.trimmingSpaces
            guard trimmed == "aes128gcm" || trimmed.lowercased() == "aes128gcm" else {
                throw Rejection(.badWebPushRequest, "Content-Encoding must be aes128gcm (RFC 8291); aesgcm and others are not taken")
            }
            let head: WebPushEncryption.Header
            do {
                head = try WebPushEncryption.Header(body)
            } catch {
                throw Rejection(.badWebPushRequest, "the body is not aes128gcm: \(error)")
            }
            guard head.keyID.count == 65, head.keyID.first == 4 else {
                throw Rejection(.badWebPushRequest, "the aes128gcm header's key id must be the sender's P-256 public key (65 bytes)")
            }
            guard body.count >= head.length + 17 else {
                throw Rejection(.badWebPushRequest, "the body ends before its first record's authentication tag")
            }
        }
        return WebPushHead(ttl: min(ttl, maximumTTL), urgency: urgency, topic: topic)
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end; the text itself when there are none (every request's usual case).
    var trimmingSpaces: Substring {
        let text = Substring(self)
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[first...last]
    }
}
