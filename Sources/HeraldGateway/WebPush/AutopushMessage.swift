import Foundation
import HeraldWire

/// Mozilla's WebPush WebSocket protocol (autopush), as Firefox speaks it to the push service named by its
/// `dom.push.serverURL`: JSON text messages with a `messageType` (docs/web-push.md § Firefox).
enum AutopushMessage: Equatable {
    /// Firefox's first message; `uaid` is the id the service gave it before, sent while it has subscriptions.
    case hello(uaid: String?)
    /// `pushManager.subscribe`: `channelID` is Firefox's UUID for the subscription, `key` the page's
    /// applicationServerKey.
    case register(channelID: String, key: Data?)
    case unregister(channelID: String)
    /// The notifications Firefox handled: 100 delivered, 101 not decryptable, 102 not delivered (unknown, a duplicate).
    case ack([Update])
    /// A service worker's `waitUntil` failed after the ack (no channel id).
    case nack(version: String)
    /// `{}`, or any message without a `messageType`.
    case ping
    case broadcastSubscribe
    case other(String)

    struct Update: Equatable {
        var channelID: String
        var version: String
        var code: Int
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: Data) throws(Malformed) -> AutopushMessage {
        guard let json = try? JSONValue.parse(text), case .object = json else { throw Malformed(description: "not a JSON object") }
        guard let type = json["messageType"]?.stringValue else { return .ping }
        let channelID = json["channelID"]?.stringValue
        switch type.lowercased() {
        case "hello":
            let uaid = json["uaid"]?.stringValue
            return .hello(uaid: uaid?.isEmpty == false ? uaid : nil)
        case "register":
            guard let channelID else { throw Malformed(description: "register without a channelID") }
            var key: Data?
            if let text = json["key"]?.stringValue {
                guard let decoded = Base64URL.decode(text.replacingOccurrences(of: "=", with: "")) else {
                    throw Malformed(description: "register with a key that is not base64url")
                }
                key = decoded
            }
            return .register(channelID: channelID, key: key)
        case "unregister":
            guard let channelID else { throw Malformed(description: "unregister without a channelID") }
            return .unregister(channelID: channelID)
        case "ack":
            guard case .array(let updates)? = json["updates"] else { throw Malformed(description: "ack without updates") }
            return .ack(
                updates.compactMap { update in
                    guard let channelID = update["channelID"]?.stringValue, let version = update["version"]?.stringValue else { return nil }
                    return Update(channelID: channelID, version: version, code: Int(update["code"]?.integerValue ?? 100))
                })
        case "nack": return .nack(version: json["version"]?.stringValue ?? "")
        case "ping": return .ping
        case "broadcast_subscribe": return .broadcastSubscribe
        default: return .other(type)
        }
    }

    // MARK: What the push service sends

    static func helloReply(uaid: String) -> String {
        text([
            "messageType": .string("hello"), "uaid": .string(uaid), "status": .integer(200), "use_webpush": .bool(true), "broadcasts": .object([:]),
        ])
    }

    static func registerReply(channelID: String, endpoint: String) -> String {
        text(["messageType": .string("register"), "channelID": .string(channelID), "status": .integer(200), "pushEndpoint": .string(endpoint)])
    }

    static func registerRefused(channelID: String, status: Int) -> String {
        text(["messageType": .string("register"), "channelID": .string(channelID), "status": .integer(Int64(status))])
    }

    static func unregisterReply(channelID: String) -> String {
        text(["messageType": .string("unregister"), "channelID": .string(channelID), "status": .integer(200)])
    }

    /// A message for a subscription: its body as sent (aes128gcm) in `data`, `version` the id Firefox acknowledges; an
    /// empty body is a push without data.
    static func notification(channelID: String, version: String, body: Data, ttl: Int64?) -> String {
        var fields: [String: JSONValue] = [
            "messageType": .string("notification"), "channelID": .string(channelID), "version": .string(version),
        ]
        if !body.isEmpty {
            fields["data"] = .string(Base64URL.encode(body))
            fields["headers"] = .object(["encoding": .string("aes128gcm")])
        }
        if let ttl { fields["ttl"] = .integer(ttl) }
        return text(fields)
    }

    static let pong = "{}"
    static let broadcastReply = text(["messageType": .string("broadcast"), "broadcasts": .object([:])])

    private static func text(_ fields: [String: JSONValue]) -> String {
        String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self)
    }
}
