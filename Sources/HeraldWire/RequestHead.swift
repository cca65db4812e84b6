public import Foundation

/// The validated headers of one provider request: `POST /3/device/<token>` and its `apns-*` headers.
///
/// Parsing applies every header rule of APNs in a fixed order and stops at the first broken one, so a
/// request gets exactly one reason.
public struct RequestHead: Sendable, Hashable {
    public var deviceToken: DeviceToken
    /// The `apns-id` the client sent, if any.
    public var apnsID: UUID?
    /// The `apns-push-type`; nil when the client sent none.
    public var pushType: PushType?
    /// The `apns-priority`; nil when the client sent none.
    public var priority: Priority?
    /// The `apns-expiration` in seconds since 1970; nil when absent.
    public var expiration: Int64?
    public var collapseID: String?
    public var topic: String?
    /// The JWT after `bearer `, if an authorization header was sent.
    public var bearerToken: String?

    /// The longest `apns-collapse-id` APNs accepts, in bytes.
    public static let maximumCollapseIDLength = 64

    /// The path prefix of every notification request.
    public static let pathPrefix = "/3/device/"

    /// Parses request headers given as name/value pairs in the order received (pseudo-headers included).
    ///
    /// - Throws: ``Rejection`` with the reason APNs would give; the first broken rule wins.
    public static func parse(_ headers: [(name: String, value: String)]) throws(Rejection) -> RequestHead {
        var fields = Fields()
        for (name, value) in headers {
            // HTTP/2 carries header names in lowercase; the gateway's HTTP/2 layer refuses anything else.
            guard let field = Fields.name(of: name) else { continue }
            if fields[field] != nil {
                throw Rejection(.duplicateHeaders, "header \(name) appears more than once")
            }
            fields[field] = value
        }
        guard fields[.method] == "POST" else {
            throw Rejection(.methodNotAllowed, "only POST is allowed, not \(fields[.method] ?? "nothing")")
        }
        let path = fields[.path] ?? ""
        guard path.hasPrefix(pathPrefix) else {
            throw Rejection(.badPath, "the path must be /3/device/<device token>")
        }
        let tokenText = Substring(path.utf8.dropFirst(pathPrefix.utf8.count))
        if tokenText.isEmpty { throw Rejection(.missingDeviceToken, "the path names no device token") }
        guard let deviceToken = DeviceToken(hex: tokenText) else {
            throw Rejection(.badDeviceToken, "the device token is not hex of a valid length")
        }
        var head = RequestHead(deviceToken: deviceToken)
        if let text = fields[.apnsID] {
            guard let id = APNsID.parse(text) else {
                throw Rejection(.badMessageID, "apns-id must be a UUID like 123e4567-e89b-12d3-a456-4266554400a0")
            }
            head.apnsID = id
        }
        if let text = fields[.pushType] {
            let pushType = PushType(rawValue: text)
            guard pushType.isKnown else { throw Rejection(.invalidPushType, "unknown apns-push-type \"\(text.prefix(32))\"") }
            head.pushType = pushType
        }
        if let text = fields[.priority] {
            guard let number = Int(text), Priority(rawValue: number).isKnown else {
                throw Rejection(.badPriority, "apns-priority must be 10, 5 or 1")
            }
            head.priority = Priority(rawValue: number)
            if head.pushType == .background && head.priority == .immediate {
                throw Rejection(.badPriority, "a background push must have priority 5 or 1, not 10")
            }
        }
        if let text = fields[.expiration] {
            guard let seconds = Int64(text), seconds >= 0 else {
                throw Rejection(.badExpirationDate, "apns-expiration must be whole seconds since 1970 (0 = do not store)")
            }
            head.expiration = seconds
        }
        if let text = fields[.collapseID] {
            guard text.utf8.count <= maximumCollapseIDLength else {
                throw Rejection(.badCollapseID, "apns-collapse-id is \(text.utf8.count) bytes; at most 64 are allowed")
            }
            head.collapseID = text
        }
        if let text = fields[.topic], !text.isEmpty {
            head.topic = text
        }
        if let text = fields[.authorization] {
            head.bearerToken = bearerToken(in: text)
        }
        return head
    }

    /// What follows the scheme `bearer` (in any case) and its spaces, or "" when the header is not a bearer token.
    static func bearerToken(in authorization: String) -> String {
        let utf8 = authorization.utf8
        // What clients send: "bearer " and the token.
        if utf8.starts(with: "bearer ".utf8), let first = utf8.dropFirst(7).first, first != UInt8(ascii: " ") {
            return String(Substring(utf8.dropFirst(7)))
        }
        let schemeStart = utf8.firstIndex { $0 != UInt8(ascii: " ") } ?? utf8.endIndex
        let schemeEnd = utf8[schemeStart...].firstIndex(of: UInt8(ascii: " ")) ?? utf8.endIndex
        // Setting bit 5 lowercases ASCII letters.
        guard utf8[schemeStart..<schemeEnd].lazy.map({ $0 | 0x20 }).elementsEqual("bearer".utf8) else { return "" }
        let tokenStart = utf8[schemeEnd...].firstIndex { $0 != UInt8(ascii: " ") } ?? utf8.endIndex
        return String(Substring(utf8[tokenStart...]))
    }

    /// The `apns-id` the client asked for, when it sent exactly one well-formed one; answers echo it even
    /// when another rule refuses the request.
    public static func requestedAPNsID(in headers: [(name: String, value: String)]) -> UUID? {
        var found: UUID?
        for (name, value) in headers where name == "apns-id" {
            if found != nil { return nil }
            found = APNsID.parse(value)
        }
        return found
    }

    /// The headers APNs gives meaning to, collected in one pass without hashing or allocating.
    private struct Fields {
        enum Name: Int {
            case method, path, scheme, authority, authorization, apnsID, pushType, priority, expiration, topic, collapseID
        }

        var values = InlineArray<11, String?>(repeating: nil)

        /// The field a header of this name fills, if any. The length narrows it to one to three names, so most
        /// headers cost a single comparison.
        static func name(of header: String) -> Name? {
            switch header.utf8.count {
            case 5: header == ":path" ? .path : nil
            case 7: header == ":method" ? .method : header == "apns-id" ? .apnsID : header == ":scheme" ? .scheme : nil
            case 10: header == "apns-topic" ? .topic : header == ":authority" ? .authority : nil
            case 13: header == "authorization" ? .authorization : header == "apns-priority" ? .priority : nil
            case 14: header == "apns-push-type" ? .pushType : nil
            case 15: header == "apns-expiration" ? .expiration : nil
            case 16: header == "apns-collapse-id" ? .collapseID : nil
            default: nil
            }
        }

        subscript(name: Name) -> String? {
            get { values[name.rawValue] }
            set { values[name.rawValue] = newValue }
        }
    }

    public init(deviceToken: DeviceToken) {
        self.deviceToken = deviceToken
    }

    /// The push type in effect: the header's, else `alert`.
    public var effectivePushType: PushType { pushType ?? .alert }

    /// The priority in effect: the header's, else 10 (5 for background pushes, which may not use 10).
    public var effectivePriority: Priority {
        priority ?? (effectivePushType == .background ? .powerConsiderate : .immediate)
    }
}
