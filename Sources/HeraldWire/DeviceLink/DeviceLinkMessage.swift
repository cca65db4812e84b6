public import Foundation

/// One message of the device link protocol (version 1): a JSON object in a WebSocket text message,
/// with its kind in `"type"`. `docs/device-link.md` describes the exchange.
public enum DeviceLinkMessage: Sendable, Hashable {
    /// gateway → device, first: sign this nonce.
    case challenge(nonce: String)
    /// device → gateway, first: the device's public key and its signature over the challenge.
    case hello(Hello)
    /// gateway → device: the signature is good; the link is open.
    case welcome(deviceID: String)
    /// device → gateway: give me a device token for this app (`kind` `app`), its push-to-start token, a token
    /// for its Live Activity `activityID`, or a web push subscription (`kind` `webPush`) named `activityID`, made with
    /// `applicationServerKey` (base64url of the VAPID public key the subscription takes messages signed with).
    case register(topic: String, kind: TokenKind = .app, activityID: String? = nil, applicationServerKey: String? = nil)
    /// gateway → device: the token asked for (the same one each time until it is unregistered); a web push
    /// subscription's with its `endpoint`.
    case registered(topic: String, deviceToken: String, kind: TokenKind = .app, activityID: String? = nil, endpoint: String? = nil)
    /// device → gateway: the app was removed (`kind` `app`: every token of the app must answer 410 Unregistered from
    /// now on), or a Live Activity was dismissed (`kind` `activity`: its token answers 410 ExpiredToken).
    case unregister(topic: String, kind: TokenKind = .app, activityID: String? = nil)
    /// gateway → device: the token no longer takes pushes, as asked, or because it was retired at the gateway.
    case unregistered(topic: String, deviceToken: String, kind: TokenKind = .app, activityID: String? = nil)
    /// device → gateway: send this app's broadcasts on the channel to this device (a Live Activity subscribed).
    case subscribe(topic: String, channelID: String)
    case subscribed(topic: String, channelID: String)
    /// device → gateway: no more of the channel's broadcasts (the device's last activity on it was dismissed).
    case unsubscribe(topic: String, channelID: String)
    case unsubscribed(topic: String, channelID: String)
    /// gateway → device.
    case notification(LinkNotification)
    /// device → gateway: this notification arrived and need not be sent again.
    case ack(uniqueID: UUID)
    /// device → gateway: what the person did with a delivered notification (`action` is an action's identifier,
    /// or UNNotificationDefaultActionIdentifier / UNNotificationDismissActionIdentifier; `text` a typed reply),
    /// for the delivery log. Nothing is answered.
    case response(uniqueID: UUID, action: String, text: String?)
    /// device → gateway: the device received this notification and dropped it, as iOS does (a Live Activity push
    /// over the activity's budget, for a token that is not an activity's, older than what it shows…), for the
    /// delivery log. Nothing is answered.
    case dropped(uniqueID: UUID, reason: String)
    /// gateway → device: a request was refused; the link stays open.
    case error(Refusal)

    public struct Hello: Sendable, Hashable {
        /// Base64url of the x9.63 P-256 public key.
        public var publicKey: String
        /// Base64url of the raw (r‖s) ECDSA signature over ``DeviceIdentity/challengeMessage(nonce:)``.
        public var signature: String

        public init(publicKey: String, signature: String) {
            self.publicKey = publicKey
            self.signature = signature
        }
    }

    /// A refused request: why, and which request it was (the fields the request named, so a device with several
    /// requests outstanding fails the right one). `topic` is absent from gateways before it was added: then it may
    /// be any.
    public struct Refusal: Sendable, Hashable {
        /// APNs-style reason, such as `BadTopic` or `TooManyRequests`.
        public var reason: String
        /// What a person can act on.
        public var message: String
        public var topic: String?
        /// Absent for an app token (and from gateways before token kinds).
        public var kind: TokenKind?
        public var activityID: String?
        public var channelID: String?

        public init(
            reason: String, message: String, topic: String? = nil, kind: TokenKind? = nil, activityID: String? = nil,
            channelID: String? = nil
        ) {
            self.reason = reason
            self.message = message
            self.topic = topic
            self.kind = kind
            self.activityID = activityID
            self.channelID = channelID
        }
    }

    /// A refusal naming only the app.
    public static func error(reason: String, message: String, topic: String? = nil) -> DeviceLinkMessage {
        .error(Refusal(reason: reason, message: message, topic: topic))
    }

    /// The refusal of this request (a register, unregister, subscribe or unsubscribe), naming what it named.
    public func refused(reason: String, message: String) -> DeviceLinkMessage {
        var refusal = Refusal(reason: reason, message: message)
        switch self {
        case .register(let topic, let kind, let activityID, _), .unregister(let topic, let kind, let activityID):
            refusal.topic = topic
            refusal.kind = kind == .app ? nil : kind
            refusal.activityID = activityID
        case .subscribe(let topic, let channelID), .unsubscribe(let topic, let channelID):
            refusal.topic = topic
            refusal.channelID = channelID
        default:
            break
        }
        return .error(refusal)
    }

    public static let protocolVersion = 1
    /// The WebSocket path of the link.
    public static let path = "/v1/link"

    /// Why a message could not be read.
    public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}

extension DeviceLinkMessage {
    /// The message as compact JSON text. A notification's payload is spliced in as sent.
    public func encoded() -> String {
        switch self {
        case .challenge(let nonce):
            return object(type: "challenge", ["version": .integer(Int64(Self.protocolVersion)), "nonce": .string(nonce)])
        case .hello(let hello):
            return object(
                type: "hello",
                [
                    "version": .integer(Int64(Self.protocolVersion)),
                    "publicKey": .string(hello.publicKey), "signature": .string(hello.signature),
                ])
        case .welcome(let deviceID):
            return object(type: "welcome", ["deviceID": .string(deviceID)])
        case .register(let topic, let kind, let activityID, let applicationServerKey):
            var fields = Self.tokenFields(topic: topic, kind: kind, activityID: activityID)
            if let applicationServerKey { fields["applicationServerKey"] = .string(applicationServerKey) }
            return object(type: "register", fields)
        case .registered(let topic, let token, let kind, let activityID, let endpoint):
            var fields = Self.tokenFields(topic: topic, kind: kind, activityID: activityID)
            fields["deviceToken"] = .string(token)
            if let endpoint { fields["endpoint"] = .string(endpoint) }
            return object(type: "registered", fields)
        case .unregister(let topic, let kind, let activityID):
            return object(type: "unregister", Self.tokenFields(topic: topic, kind: kind, activityID: activityID))
        case .unregistered(let topic, let token, let kind, let activityID):
            var fields = Self.tokenFields(topic: topic, kind: kind, activityID: activityID)
            fields["deviceToken"] = .string(token)
            return object(type: "unregistered", fields)
        case .subscribe(let topic, let channelID):
            return object(type: "subscribe", ["topic": .string(topic), "channelID": .string(channelID)])
        case .subscribed(let topic, let channelID):
            return object(type: "subscribed", ["topic": .string(topic), "channelID": .string(channelID)])
        case .unsubscribe(let topic, let channelID):
            return object(type: "unsubscribe", ["topic": .string(topic), "channelID": .string(channelID)])
        case .unsubscribed(let topic, let channelID):
            return object(type: "unsubscribed", ["topic": .string(topic), "channelID": .string(channelID)])
        case .ack(let uniqueID):
            return object(type: "ack", ["uniqueID": .string(APNsID.format(uniqueID))])
        case .dropped(let uniqueID, let reason):
            return object(type: "dropped", ["uniqueID": .string(APNsID.format(uniqueID)), "reason": .string(reason)])
        case .response(let uniqueID, let action, let text):
            var fields: [String: JSONValue] = ["uniqueID": .string(APNsID.format(uniqueID)), "action": .string(action)]
            if let text { fields["text"] = .string(text) }
            return object(type: "response", fields)
        case .error(let refusal):
            var fields: [String: JSONValue] = ["reason": .string(refusal.reason), "message": .string(refusal.message)]
            if let topic = refusal.topic { fields["topic"] = .string(topic) }
            if let kind = refusal.kind { fields["kind"] = .string(kind.rawValue) }
            if let activityID = refusal.activityID { fields["activityID"] = .string(activityID) }
            if let channelID = refusal.channelID { fields["channelID"] = .string(channelID) }
            return object(type: "error", fields)
        case .notification(let notification):
            return String(decoding: Self.notificationText(notification), as: UTF8.self)
        }
    }

    /// The message as UTF-8 JSON text: what ``encoded()`` returns, without making a `String` of it.
    public func encodedUTF8() -> [UInt8] {
        if case .notification(let notification) = self { return Self.notificationText(notification) }
        return Array(encoded().utf8)
    }

    /// A notification written member by member, keys in sorted order as for every message, the provider's
    /// payload spliced in last as sent: every notification pushed to a device is written here.
    private static func notificationText(_ notification: LinkNotification) -> [UInt8] {
        var writer = JSONWriter(capacity: 400 + notification.payload.count)
        var separator = UInt8(ascii: "{")
        func member(_ key: String, _ write: (inout JSONWriter) -> Void) {
            writer.writeRaw(CollectionOfOne(separator))
            separator = UInt8(ascii: ",")
            writer.writeKey(key)
            write(&writer)
        }
        member("apnsID") { $0.writeString(APNsID.format(notification.apnsID)) }
        member("bundleID") { $0.writeString(notification.bundleID) }
        if let channelID = notification.channelID { member("channelID") { $0.writeString(channelID) } }
        if let collapseID = notification.collapseID { member("collapseID") { $0.writeString(collapseID) } }
        member("deviceToken") { $0.writeString(notification.deviceToken) }
        if let expiration = notification.expiration { member("expiration") { $0.write(.integer(expiration)) } }
        member("priority") { $0.write(.integer(Int64(notification.priority.rawValue))) }
        member("pushType") { $0.writeString(notification.pushType.rawValue) }
        member("receivedAt") { $0.write(.integer(notification.receivedAt)) }
        member("topic") { $0.writeString(notification.topic) }
        member("type") { $0.writeString("notification") }
        member("uniqueID") { $0.writeString(APNsID.format(notification.uniqueID)) }
        member("payload") { $0.writeRaw(notification.payload) }
        writer.writeRaw(CollectionOfOne(UInt8(ascii: "}")))
        return writer.bytes
    }

    /// An app token's fields are only its topic, as before token kinds.
    private static func tokenFields(topic: String, kind: TokenKind, activityID: String?) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["topic": .string(topic)]
        if kind != .app { fields["kind"] = .string(kind.rawValue) }
        if let activityID { fields["activityID"] = .string(activityID) }
        return fields
    }

    private func object(type: String, _ fields: [String: JSONValue]) -> String {
        var fields = fields
        fields["type"] = .string(type)
        return String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self)
    }

    /// Reads one message.
    ///
    /// - Throws: ``DecodingError`` naming what is wrong: not JSON, no known `type`, a missing or mistyped field.
    public static func decode(_ text: String) throws(DecodingError) -> DeviceLinkMessage {
        // A notification's payload is passed on as the provider sent it, so it is checked but not parsed here.
        let fields: [String: JSONValue]
        let rawPayload: Data?
        do throws(JSONParser.SyntaxError) {
            (fields, rawPayload) = try JSONValue.parseObject(Data(text.utf8), keepingRaw: "payload")
        } catch {
            throw DecodingError("not a JSON object (syntax error at byte \(error.offset))")
        }
        guard let type = fields["type"]?.stringValue else { throw DecodingError("the message has no \"type\"") }
        func string(_ name: String) throws(DecodingError) -> String {
            guard let value = fields[name]?.stringValue else { throw DecodingError("\(type) needs the string \"\(name)\"") }
            return value
        }
        func uuid(_ name: String) throws(DecodingError) -> UUID {
            guard let value = APNsID.parse(try string(name)) else { throw DecodingError("\(type): \"\(name)\" must be a UUID") }
            return value
        }
        func kind() throws(DecodingError) -> TokenKind {
            guard let value = fields["kind"] else { return .app }
            guard let kind = value.stringValue.flatMap(TokenKind.init(rawValue:)) else {
                throw DecodingError("\(type): \"kind\" must be one of \(TokenKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return kind
        }
        /// An activity's id (a web push subscription's name): required for an activity token and a subscription,
        /// refused for the others.
        func activityID(for kind: TokenKind) throws(DecodingError) -> String? {
            let id = fields["activityID"]?.stringValue
            guard (kind == .activity || kind == .webPush) == (id != nil) else {
                throw DecodingError("\(type): \"activityID\" goes with \"kind\": \"activity\" or \"webPush\" and only with them")
            }
            return id
        }
        switch type {
        case "challenge": return .challenge(nonce: try string("nonce"))
        case "hello": return .hello(Hello(publicKey: try string("publicKey"), signature: try string("signature")))
        case "welcome": return .welcome(deviceID: try string("deviceID"))
        case "register", "unregister", "registered", "unregistered":
            let topic = try string("topic")
            let kind = try kind()
            let activityID = try activityID(for: kind)
            switch type {
            case "register":
                return .register(
                    topic: topic, kind: kind, activityID: activityID, applicationServerKey: fields["applicationServerKey"]?.stringValue)
            case "unregister": return .unregister(topic: topic, kind: kind, activityID: activityID)
            case "registered":
                return .registered(
                    topic: topic, deviceToken: try string("deviceToken"), kind: kind, activityID: activityID,
                    endpoint: fields["endpoint"]?.stringValue)
            default: return .unregistered(topic: topic, deviceToken: try string("deviceToken"), kind: kind, activityID: activityID)
            }
        case "subscribe": return .subscribe(topic: try string("topic"), channelID: try string("channelID"))
        case "subscribed": return .subscribed(topic: try string("topic"), channelID: try string("channelID"))
        case "unsubscribe": return .unsubscribe(topic: try string("topic"), channelID: try string("channelID"))
        case "unsubscribed": return .unsubscribed(topic: try string("topic"), channelID: try string("channelID"))
        case "ack": return .ack(uniqueID: try uuid("uniqueID"))
        case "dropped": return .dropped(uniqueID: try uuid("uniqueID"), reason: try string("reason"))
        case "response": return .response(uniqueID: try uuid("uniqueID"), action: try string("action"), text: fields["text"]?.stringValue)
        case "error":
            var refusal = Refusal(reason: try string("reason"), message: try string("message"), topic: fields["topic"]?.stringValue)
            if fields["kind"] != nil { refusal.kind = try kind() }
            refusal.activityID = fields["activityID"]?.stringValue
            refusal.channelID = fields["channelID"]?.stringValue
            return .error(refusal)
        case "notification":
            guard let payload = rawPayload, payload.first == UInt8(ascii: "{") else {
                throw DecodingError("notification needs the object \"payload\"")
            }
            guard let priority = fields["priority"]?.integerValue, let receivedAt = fields["receivedAt"]?.integerValue else {
                throw DecodingError("notification needs the integers \"priority\" and \"receivedAt\"")
            }
            return .notification(
                LinkNotification(
                    apnsID: try uuid("apnsID"),
                    uniqueID: try uuid("uniqueID"),
                    topic: try string("topic"),
                    bundleID: try string("bundleID"),
                    deviceToken: try string("deviceToken"),
                    pushType: PushType(rawValue: try string("pushType")),
                    priority: Priority(rawValue: Int(priority)),
                    collapseID: fields["collapseID"]?.stringValue,
                    expiration: fields["expiration"]?.integerValue,
                    receivedAt: receivedAt,
                    payload: payload,
                    channelID: fields["channelID"]?.stringValue
                ))
        default:
            throw DecodingError("unknown message type \"\(type)\"")
        }
    }
}

extension DeviceLinkMessage {
    /// The message's `"type"`.
    public var typeName: String {
        switch self {
        case .challenge: "challenge"
        case .hello: "hello"
        case .welcome: "welcome"
        case .register: "register"
        case .registered: "registered"
        case .unregister: "unregister"
        case .unregistered: "unregistered"
        case .subscribe: "subscribe"
        case .subscribed: "subscribed"
        case .unsubscribe: "unsubscribe"
        case .unsubscribed: "unsubscribed"
        case .notification: "notification"
        case .ack: "ack"
        case .response: "response"
        case .dropped: "dropped"
        case .error: "error"
        }
    }
}
