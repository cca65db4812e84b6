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
    /// device → gateway: give me a device token for this app.
    case register(topic: String)
    /// gateway → device: the app's device token (the same one each time until it is unregistered).
    case registered(topic: String, deviceToken: String)
    /// device → gateway: the app was removed; its token must answer 410 Unregistered from now on.
    case unregister(topic: String)
    case unregistered(topic: String, deviceToken: String)
    /// gateway → device.
    case notification(LinkNotification)
    /// device → gateway: this notification arrived and need not be sent again.
    case ack(uniqueID: UUID)
    /// device → gateway: what the person did with a delivered notification (`action` is an action's identifier,
    /// or UNNotificationDefaultActionIdentifier / UNNotificationDismissActionIdentifier; `text` a typed reply),
    /// for the delivery log. Nothing is answered.
    case response(uniqueID: UUID, action: String, text: String?)
    /// gateway → device: a request (register, unregister) was refused; the link stays open. `topic` names the
    /// app the refused request was for (absent from gateways before it was added: then it may be any).
    case error(reason: String, message: String, topic: String? = nil)

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
        case .register(let topic):
            return object(type: "register", ["topic": .string(topic)])
        case .registered(let topic, let token):
            return object(type: "registered", ["topic": .string(topic), "deviceToken": .string(token)])
        case .unregister(let topic):
            return object(type: "unregister", ["topic": .string(topic)])
        case .unregistered(let topic, let token):
            return object(type: "unregistered", ["topic": .string(topic), "deviceToken": .string(token)])
        case .ack(let uniqueID):
            return object(type: "ack", ["uniqueID": .string(APNsID.format(uniqueID))])
        case .response(let uniqueID, let action, let text):
            var fields: [String: JSONValue] = ["uniqueID": .string(APNsID.format(uniqueID)), "action": .string(action)]
            if let text { fields["text"] = .string(text) }
            return object(type: "response", fields)
        case .error(let reason, let message, let topic):
            var fields: [String: JSONValue] = ["reason": .string(reason), "message": .string(message)]
            if let topic { fields["topic"] = .string(topic) }
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
        switch type {
        case "challenge": return .challenge(nonce: try string("nonce"))
        case "hello": return .hello(Hello(publicKey: try string("publicKey"), signature: try string("signature")))
        case "welcome": return .welcome(deviceID: try string("deviceID"))
        case "register": return .register(topic: try string("topic"))
        case "registered": return .registered(topic: try string("topic"), deviceToken: try string("deviceToken"))
        case "unregister": return .unregister(topic: try string("topic"))
        case "unregistered": return .unregistered(topic: try string("topic"), deviceToken: try string("deviceToken"))
        case "ack": return .ack(uniqueID: try uuid("uniqueID"))
        case "response": return .response(uniqueID: try uuid("uniqueID"), action: try string("action"), text: fields["text"]?.stringValue)
        case "error": return .error(reason: try string("reason"), message: try string("message"), topic: fields["topic"]?.stringValue)
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
                    payload: payload
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
        case .notification: "notification"
        case .ack: "ack"
        case .response: "response"
        case .error: "error"
        }
    }
}
