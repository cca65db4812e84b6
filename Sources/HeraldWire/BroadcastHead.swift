public import Foundation

/// The validated headers of one broadcast (iOS 18): `POST /4/broadcasts/apps/<bundle id>` with the channel's id, the
/// push type (`liveactivity`), an expiration and a priority, all of which Apple's documentation marks required.
///
/// Parsing stops at the first broken rule, in the order of ``parse(_:)``, so a request gets one reason.
public struct BroadcastHead: Sendable, Hashable {
    public var bundleID: String
    public var channelID: String
    /// The `apns-request-id` the provider sent, if any (answers echo it).
    public var requestID: UUID?
    public var priority: Priority
    /// `apns-expiration` in seconds since 1970; 0: deliver once, never store.
    public var expiration: Int64
    /// The JWT after `bearer `, if an authorization header was sent.
    public var bearerToken: String?

    /// The path prefix of every broadcast.
    public static let pathPrefix = "/4/broadcasts/apps/"
    /// The largest broadcast payload, in bytes.
    public static let maximumPayloadSize = 5120

    /// Whether the request's `:path` is a broadcast's (the provider port serves both kinds).
    public static func isBroadcast(_ headers: [(name: String, value: String)]) -> Bool {
        for (name, value) in headers where name == ":path" { return value.utf8.starts(with: pathPrefix.utf8) }
        return false
    }

    /// The `apns-request-id` the provider sent, when it sent one well-formed one; answers echo it.
    public static func requestedRequestID(in headers: [(name: String, value: String)]) -> UUID? {
        let sent = headers.filter { $0.name == "apns-request-id" }
        return sent.count == 1 ? APNsID.parse(sent[0].value) : nil
    }

    /// Whether `id` can be a channel's id: base64, at most 64 characters (APNs' ids are 24; Apple promises no length).
    public static func isWellFormedChannelID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && Data(base64Encoded: id) != nil
    }

    /// - Throws: ``Rejection`` with the reason APNs gives (docs/provider-api.md names where Herald chose).
    public static func parse(_ headers: [(name: String, value: String)]) throws(Rejection) -> BroadcastHead {
        var fields: [String: String] = [:]
        for (name, value) in headers {
            guard fields.updateValue(value, forKey: name) == nil else {
                throw Rejection(.duplicateHeaders, "header \(name) appears more than once")
            }
        }
        guard fields[":method"] == "POST" else {
            throw Rejection(.methodNotAllowed, "only POST is allowed, not \(fields[":method"] ?? "nothing")")
        }
        let bundleID = String((fields[":path"] ?? "").dropFirst(pathPrefix.count))
        guard fields[":path"]?.hasPrefix(pathPrefix) == true, !bundleID.isEmpty, !bundleID.contains("/") else {
            throw Rejection(.badPath, "the path must be /4/broadcasts/apps/<bundle id>")
        }
        guard PushType.suffixed(bundleID) == nil else {
            throw Rejection(.topicDisallowed, "name the app by its bundle id, without a push type's suffix")
        }
        guard TopicSyntax.isValid(bundleID) else { throw Rejection(.badTopic, "the path must name a bundle id such as com.example.app") }
        var requestID: UUID?
        if let text = fields["apns-request-id"] {
            guard let id = APNsID.parse(text) else {
                throw Rejection(.badMessageID, "apns-request-id must be a UUID like 123e4567-e89b-12d3-a456-4266554400a0")
            }
            requestID = id
        }
        guard let channelID = fields["apns-channel-id"] else { throw Rejection(.missingChannelID, "send apns-channel-id") }
        guard isWellFormedChannelID(channelID) else { throw Rejection(.badChannelID, "apns-channel-id must be a channel id in base64") }
        guard let pushType = fields["apns-push-type"] else { throw Rejection(.missingPushType, "send apns-push-type: liveactivity") }
        guard pushType.lowercased() == PushType.liveActivity.rawValue else {
            throw Rejection(.invalidPushType, "a broadcast's apns-push-type is liveactivity")
        }
        guard let expirationText = fields["apns-expiration"], let expiration = Int64(expirationText), expiration >= 0 else {
            throw Rejection(.badExpirationDate, "a broadcast needs apns-expiration: whole seconds since 1970, or 0 (do not store)")
        }
        guard let priorityText = fields["apns-priority"], let number = Int(priorityText), Priority(rawValue: number).isKnown else {
            throw Rejection(.badPriority, "a broadcast needs apns-priority: 10, 5 or 1")
        }
        return BroadcastHead(
            bundleID: bundleID, channelID: channelID, requestID: requestID, priority: Priority(rawValue: number), expiration: expiration,
            bearerToken: fields["authorization"].map(RequestHead.bearerToken(in:)))
    }
}
