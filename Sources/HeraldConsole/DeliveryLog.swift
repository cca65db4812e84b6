import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire
import Hummingbird

/// `GET /v1/notifications?q=…&before=…&limit=…`: the delivery log, newest first, a page at a time; each
/// notification with its timeline (``AdminAPI/timeline(of:)``).
///
/// `q` is what a person pastes into the console's search box:
/// - nothing: every notification;
/// - a UUID written as APNs writes one, with its dashes (`01a2025f-661a-7c6b-90ce-a0d495582c4d`, either case): the
///   notifications with that `apns-id` (several when a provider reused one) or that `apns-unique-id`;
/// - hex digits (either case, 1 to 400): the notifications to device tokens that start with them. A string of 32
///   hex digits is a token prefix too, never an id: ids are only taken with their dashes, so a search means one thing.
///
/// The answer is `{"notifications":[…],"next":41}`: `next`, present when older notifications match, is the
/// `before` of the next page. `limit` is 50 unless given, 200 at most. A malformed search, cursor or limit is 400
/// with `{"reason":…,"message":…}` saying what to send instead.
struct DeliveryLog: Sendable {
    let store: any Store

    static let defaultLimit = 50
    static let maximumLimit = 200

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("notifications") { request, _ in
            let parameters = request.uri.queryParameters
            let page: PageRequest
            do throws(BadRequest) {
                page = try Self.pageRequest(q: parameters["q"], before: parameters["before"], limit: parameters["limit"])
            } catch {
                return AdminAPI.error(.badRequest, error.reason, error.message)
            }
            return try await answer(page)
        }
    }

    /// What a request asks for, once its parameters are understood.
    struct PageRequest: Equatable {
        var query: NotificationQuery
        var before: Int64?
        var limit: Int
    }

    /// A parameter that cannot be understood: the 400's `reason` and `message`.
    struct BadRequest: Error, Equatable {
        var reason: String
        var message: String
    }

    /// Reads `q`, `before` and `limit` (already percent-decoded).
    static func pageRequest(q: Substring?, before: Substring?, limit: Substring?) throws(BadRequest) -> PageRequest {
        PageRequest(query: try query(q ?? ""), before: try cursor(before), limit: try pageSize(limit))
    }

    static func query(_ text: Substring) throws(BadRequest) -> NotificationQuery {
        let search = text.trimmingCharacters(in: .whitespaces)
        if search.isEmpty { return .all }
        if let id = APNsID.parse(search) { return .id(id) }
        guard search.utf8.allSatisfy(Self.isHexDigit) else {
            throw BadRequest(
                reason: "BadQuery",
                message: "search by an apns-id or apns-unique-id (a UUID with its dashes, such as 01a2025f-661a-7c6b-90ce-a0d495582c4d) "
                    + "or by the start of a device token (hex digits)")
        }
        guard search.utf8.count <= 400 else {
            throw BadRequest(reason: "BadQuery", message: "a device token has at most 400 hex digits; this search has \(search.utf8.count)")
        }
        return .deviceTokenPrefix(search.lowercased())
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func cursor(_ text: Substring?) throws(BadRequest) -> Int64? {
        guard let text, !text.isEmpty else { return nil }
        guard let id = Int64(text), id > 0 else {
            throw BadRequest(reason: "BadCursor", message: "before is the next value of the previous page (a whole number above 0)")
        }
        return id
    }

    private static func pageSize(_ text: Substring?) throws(BadRequest) -> Int {
        guard let text, !text.isEmpty else { return defaultLimit }
        guard let limit = Int(text), (1...maximumLimit).contains(limit) else {
            throw BadRequest(
                reason: "BadLimit", message: "limit is how many notifications a page holds: 1 to \(maximumLimit) (\(defaultLimit) if not given)")
        }
        return limit
    }

    /// One more than the page is read, to know whether an older page follows.
    private func answer(_ request: PageRequest) async throws -> Response {
        var page = try await store.notifications(matching: request.query, before: request.before, limit: request.limit + 1)
        var fields: [String: JSONValue] = [:]
        if page.count > request.limit {
            page.removeLast(page.count - request.limit)
            if let last = page.last?.id { fields["next"] = .integer(last) }
        }
        var notifications: [JSONValue] = []
        for notification in page { notifications.append(try await Self.timeline(of: notification, store: store)) }
        fields["notifications"] = .array(notifications)
        return AdminAPI.json(.ok, .object(fields))
    }

    /// The notification's timeline; a broadcast's with its fan-out: `{"subscribers": N, "acknowledged": M}` (devices
    /// subscribed to its channel now, and those that acknowledged it or a later broadcast).
    static func timeline(of notification: StoredNotification, store: any Store) async throws -> JSONValue {
        let timeline = DeliveryTimeline.timeline(of: notification)
        guard let channelID = notification.channelID, let id = notification.id, case .object(var fields) = timeline else { return timeline }
        fields["fanOut"] = .object([
            "subscribers": .integer(Int64(try await store.subscriberCount(channelID: channelID))),
            "acknowledged": .integer(Int64(try await store.broadcastAcknowledgements(channelID: channelID, notificationID: id))),
        ])
        return .object(fields)
    }
}
