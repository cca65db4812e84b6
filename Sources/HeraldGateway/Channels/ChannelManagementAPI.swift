import Foundation
import HeraldStore
import HeraldWire
import NIOCore
import NIOPosix
import Synchronization

/// Apple's channel management API for broadcast channels (iOS 18), as its separate management host serves it:
/// `POST`, `GET` and `DELETE /1/apps/BUNDLE/channels` (the channel named by `apns-channel-id`) and
/// `GET /1/apps/BUNDLE/all-channels`, with the provider API's tokens and keys. docs/provider-api.md has each answer
/// and where Apple's documentation left Herald to choose.
struct ChannelManagementAPI: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// The header fields, names in lowercase as HTTP/2 sends them, pseudo-headers left out.
        var headers: [(name: String, value: String)]
        var body: Data
        /// The connection's client certificate, when it presented one (certificate-based authentication).
        var certificate: ClientIdentity?

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: Data?
    }

    /// What one connection has established about its provider tokens, as on the provider port: the team it is bound
    /// to and when its token last changed.
    final class Session: Sendable {
        let auth = Mutex(ConnectionAuthState())
        let verified = Mutex<TokenVerifier.Verified?>(nil)
    }

    let store: any Store
    let directory: Directory
    let environment: APNsEnvironment
    let clock: any WallClock
    let channelLimit: Int
    private let verifier = TokenVerifier(cacheLimit: 64)

    init(store: any Store, directory: Directory, environment: APNsEnvironment, clock: any WallClock, channelLimit: Int) {
        self.store = store
        self.directory = directory
        self.environment = environment
        self.clock = clock
        self.channelLimit = channelLimit
    }

    private enum Route {
        case channels(bundleID: String)
        case allChannels(bundleID: String)
    }

    /// The answer to `request`; every answer carries `apns-request-id` (the request's, or a new one).
    func handle(_ request: Request, session: Session) async -> Response {
        var requestID = APNsID.format(APNsID.generate())
        do throws(Rejection) {
            if let sent = request.header("apns-request-id") {
                guard let id = APNsID.parse(sent) else {
                    throw Rejection(.badMessageID, "apns-request-id must be a UUID such as 123e4567-e89b-12d3-a456-4266554400a0")
                }
                requestID = APNsID.format(id)
            }
            let route = try Self.route(request)
            let bundleID: String
            switch route {
            case .channels(let bundle), .allChannels(let bundle): bundleID = bundle
            }
            try await authenticate(request, bundleID: bundleID, session: session)
            var response = try await answer(request, route: route, bundleID: bundleID)
            response.headers.insert(("apns-request-id", requestID), at: 0)
            return response
        } catch {
            var body = Data(#"{"reason":""#.utf8)
            body.append(contentsOf: error.reason.rawValue.utf8)
            body.append(contentsOf: #""}"#.utf8)
            return Response(
                status: error.reason.status, headers: [("apns-request-id", requestID), ("content-type", "application/json")], body: body)
        }
    }

    private static func route(_ request: Request) throws(Rejection) -> Route {
        let parts = request.path.split(separator: "?", maxSplits: 1)[0].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty else {
            throw Rejection(.badPath, "the channel management API serves /1/apps/BUNDLE/channels and /1/apps/BUNDLE/all-channels")
        }
        let bundleID = String(parts[3])
        let route: Route
        let methods: [String]
        switch parts[4] {
        case "channels": (route, methods) = (.channels(bundleID: bundleID), ["POST", "GET", "DELETE"])
        case "all-channels": (route, methods) = (.allChannels(bundleID: bundleID), ["GET"])
        default: throw Rejection(.badPath, "the channel management API serves /1/apps/BUNDLE/channels and /1/apps/BUNDLE/all-channels")
        }
        guard methods.contains(request.method) else {
            throw Rejection(.methodNotAllowed, "\(request.path) takes \(methods.joined(separator: ", "))")
        }
        guard PushType.suffixed(bundleID) == nil else {
            throw Rejection(.topicDisallowed, "name the app by its bundle id, without a push type's suffix")
        }
        guard TopicSyntax.isValid(bundleID) else { throw Rejection(.badTopic, "the path must name a bundle id such as com.example.app") }
        return route
    }

    /// A client certificate's checks, or the provider token's as the provider port makes them on its connections; then
    /// the key's or certificate's reach.
    private func authenticate(_ request: Request, bundleID: String, session: Session) async throws(Rejection) {
        if let identity = request.certificate {
            if identity.topics.isEmpty { throw Rejection(.badCertificate, "the client certificate names no topic") }
            if let environment = identity.environment, environment != self.environment {
                throw Rejection(.badCertificateEnvironment, "the certificate is for \(environment), this gateway is \(self.environment)")
            }
            guard identity.topics.contains(bundleID) else { throw Rejection(.topicMismatch, "the certificate does not cover \(bundleID)") }
            return
        }
        guard let authorization = request.header("authorization"), authorization.lowercased().hasPrefix("bearer ") else {
            throw Rejection(.missingProviderToken, "send authorization: bearer <provider token>")
        }
        let jwt = String(authorization.dropFirst("bearer ".count))
        let token = try verifier.parse(jwt, recent: session.verified.withLock { $0 })
        let key: ResolvedKey?
        do {
            key = try await directory.loadKey(teamID: token.teamID, keyID: token.keyID, on: MultiThreadedEventLoopGroup.singleton.any()).get()
        } catch {
            throw Rejection(.internalServerError, "the store cannot be read")
        }
        let record = try session.verified.withLock { (recent) throws(Rejection) in try verifier.check(jwt, token, key: key, recent: &recent) }
        let now = clock.now()
        try session.auth.withLock { (auth) throws(Rejection) in
            try auth.admit(jwt: jwt, token: token, key: record, environment: environment, now: now)
        }
        guard record.covers(bundleID: bundleID) else {
            throw Rejection(.topicMismatch, "key \(record.keyID) does not cover \(bundleID)")
        }
    }

    private func answer(_ request: Request, route: Route, bundleID: String) async throws(Rejection) -> Response {
        switch (route, request.method) {
        case (.allChannels, _):
            let ids = try await storeCall { try await store.channels(bundleID: bundleID, environment: environment) }.map(\.id)
            return Response(
                status: 200, headers: [("content-type", "application/json")],
                body: JSONValue.object(["channels": .array(ids.map(JSONValue.string))]).encoded())
        case (.channels, "POST"):
            let policy = try Self.creation(request.body)
            let channel = BroadcastChannel(bundleID: bundleID, environment: environment, storagePolicy: policy, createdAt: clock.now())
            guard try await storeCall({ try await store.createChannel(channel, limit: channelLimit) }) else {
                throw Rejection(.cannotCreateChannelConfig, "\(bundleID) has \(channelLimit) channels in \(environment); delete some first")
            }
            return Response(status: 201, headers: [("apns-channel-id", channel.id)], body: nil)
        case (.channels, "GET"):
            let channel = try await existingChannel(request, bundleID: bundleID)
            let body = JSONValue.object([
                "message-storage-policy": .integer(Int64(channel.storagePolicy.rawValue)), "push-type": .string("LiveActivity"),
            ])
            return Response(status: 200, headers: [("content-type", "application/json")], body: body.encoded())
        default:  // DELETE
            let channel = try await existingChannel(request, bundleID: bundleID, unknown: Rejection(.badPath, "no such channel"))
            guard try await storeCall({ try await store.deleteChannel(id: channel.id, at: clock.now()) }) else {
                throw Rejection(.badPath, "no such channel")
            }
            return Response(status: 204, headers: [], body: nil)
        }
    }

    /// The live channel `apns-channel-id` names for this app and environment.
    ///
    /// - Parameter unknown: What answers a channel that does not exist, was deleted or is another app's
    ///   (`ChannelNotRegistered`; APNs has been seen to answer a DELETE of one 404 `BadPath`).
    private func existingChannel(
        _ request: Request, bundleID: String, unknown: Rejection = Rejection(.channelNotRegistered, "no such channel")
    ) async throws(Rejection) -> BroadcastChannel {
        guard let id = request.header("apns-channel-id") else { throw Rejection(.missingChannelID, "send apns-channel-id") }
        guard BroadcastHead.isWellFormedChannelID(id) else { throw Rejection(.badChannelID, "apns-channel-id must be a channel id in base64") }
        guard let channel = try await storeCall({ try await store.channel(id: id) }), channel.deletedAt == nil,
            channel.bundleID == bundleID, channel.environment == environment
        else { throw unknown }
        return channel
    }

    /// The storage policy of a creation's body: `{"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}`.
    /// node-apn sends `"liveactivity"` and, in its README, the policy as a string; both are taken.
    private static func creation(_ body: Data) throws(Rejection) -> ChannelStoragePolicy {
        guard !body.isEmpty else { throw Rejection(.payloadEmpty, "send {\"message-storage-policy\": 0 or 1, \"push-type\": \"LiveActivity\"}") }
        let json: JSONValue
        do {
            json = try JSONValue.parse(body)
        } catch {
            throw Rejection(.badRequestPayload, "the body is not JSON")
        }
        guard case .object(let members) = json else { throw Rejection(.badRequestPayload, "the body must be a JSON object") }
        for key in members.keys where key != "message-storage-policy" && key != "push-type" {
            throw Rejection(.badRequestParams, "a channel takes message-storage-policy and push-type, not \(key)")
        }
        guard let pushType = members["push-type"] else { throw Rejection(.missingPushType, "send \"push-type\": \"LiveActivity\"") }
        guard pushType.stringValue?.lowercased() == "liveactivity" else {
            throw Rejection(.invalidPushType, "a channel's push-type is LiveActivity")
        }
        guard let value = members["message-storage-policy"] else {
            throw Rejection(.missingChannelQueueSize, "send \"message-storage-policy\": 0 or 1")
        }
        guard let number = value.integerValue ?? value.stringValue.flatMap({ Int64($0) }),
            let policy = ChannelStoragePolicy(rawValue: Int(number))
        else { throw Rejection(.badRequestParams, "message-storage-policy is 0 (no message stored) or 1 (the most recent stored)") }
        return policy
    }

    /// A store call whose failure answers 503 (the store cannot be reached or is held: try again) or 500.
    private func storeCall<T: Sendable>(_ body: () async throws -> T) async throws(Rejection) -> T {
        do {
            return try await body()
        } catch {
            throw .storeFailure(error)
        }
    }
}
