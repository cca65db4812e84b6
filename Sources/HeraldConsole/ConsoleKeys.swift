import Crypto
import Foundation
import HTTPTypes
import HeraldGateway
import HeraldStore
import HeraldWire
import Hummingbird
import NIOCore

/// The console's keys and tokens: provider keys listed, created (the private key handed over once and never kept),
/// imported and revoked; tokens of virtual devices issued; any token unregistered. Every change is also put in the
/// ``Directory``, so the provider API acts on it at once.
struct ConsoleKeys: Sendable {
    let store: any Store
    let directory: Directory
    /// Announces a token the console retires, as any other.
    let retirements: RetirementFeed
    /// The gateway's environment: new keys and tokens belong to it unless the request names another.
    let environment: APNsEnvironment
    let clock: any WallClock

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("keys") { _, _ in try await keys() }
        group.post("keys") { request, _ in
            try await Self.answering { try await create(try await Self.object(in: request)) }
        }
        group.post("keys/import") { request, _ in
            try await Self.answering { try await importKey(try await Self.object(in: request)) }
        }
        group.post("keys/:teamID/:keyID/revoke") { _, context in
            try await Self.answering {
                try await revoke(teamID: context.parameters.get("teamID") ?? "", keyID: context.parameters.get("keyID") ?? "")
            }
        }
        group.post("tokens") { request, _ in
            try await Self.answering { try await issue(try await Self.object(in: request)) }
        }
        group.post("tokens/:token/unregister") { request, context in
            try await Self.answering { try await unregister(context.parameters.get("token") ?? "", try await Self.object(in: request)) }
        }
    }

    // MARK: Keys

    /// `GET /v1/keys`: every key, revoked ones too; only public facts (the gateway has no private keys).
    private func keys() async throws -> Response {
        AdminAPI.json(.ok, .object(["keys": .array(try await store.keys().map(Self.keyJSON))]))
    }

    /// `POST /v1/keys`: a new P-256 key; its public half is stored and its private half answered once, as `.p8` text.
    private func create(_ body: [String: JSONValue]) async throws -> Response {
        let checked = try KeyFields(body, gatewayEnvironment: environment)
        let privateKey = P256.Signing.PrivateKey()
        let record = try await add(checked, publicKey: privateKey.publicKey)
        var fields: [String: JSONValue] = [
            "key": Self.keyJSON(record),
            "p8": .string(String(decoding: PEMFile.contents(privateKey.pemRepresentation), as: UTF8.self)),
            "fileName": .string("AuthKey_\(record.keyID).p8"),
            "message": .string(
                "This answer holds the only copy of the private key: save it now as AuthKey_\(record.keyID).p8. "
                    + "The gateway kept only the public half and cannot show the private key again."),
        ]
        fields["warnings"] = environmentWarning(record.environment)
        var response = AdminAPI.json(.created, .object(fields))
        response.headers[HTTPField.Name.cacheControl] = "no-store"
        return response
    }

    /// `POST /v1/keys/import`: registers an existing key from its `.p8` (or only its public key) in `pem`; only the
    /// public half is stored.
    private func importKey(_ body: [String: JSONValue]) async throws -> Response {
        let checked = try KeyFields(body, gatewayEnvironment: environment)
        guard let pem = body["pem"]?.stringValue, !pem.isEmpty else {
            throw Refusal(.badRequest, "BadKey", "send the key in \"pem\": the .p8 file's text (-----BEGIN PRIVATE KEY-----…) or its public key")
        }
        guard let (publicKey, form) = ProviderKeyPEM.publicKey(in: pem) else {
            throw Refusal(
                .badRequest, "BadKey",
                "pem is not a P-256 key: give the text of an APNs .p8 file (-----BEGIN PRIVATE KEY-----) or of its public key (-----BEGIN PUBLIC KEY-----)"
            )
        }
        let record = try await add(checked, publicKey: publicKey)
        var fields: [String: JSONValue] = [
            "key": Self.keyJSON(record),
            "from": .string(form.rawValue),
            "message": .string(
                form == .privateKey
                    ? "Registered the key's public half; the private key was not kept." : "Registered the public key."),
        ]
        fields["warnings"] = environmentWarning(record.environment)
        return AdminAPI.json(.created, .object(fields))
    }

    /// The fields of a key to add, checked.
    private struct KeyFields {
        var teamID: String
        var keyID: String
        var topics: [String]
        var environment: APNsEnvironment

        init(_ body: [String: JSONValue], gatewayEnvironment: APNsEnvironment) throws {
            teamID = body["teamID"]?.stringValue ?? ""
            keyID = body["keyID"]?.stringValue ?? ""
            if let problem = AppleID.problem(teamID, name: "teamID", example: "TEAM123456") { throw Refusal(.badRequest, "BadTeamID", problem) }
            if let problem = AppleID.problem(keyID, name: "keyID", example: "KEY1234567") { throw Refusal(.badRequest, "BadKeyID", problem) }
            topics = try ConsoleKeys.topics(body["topics"])
            environment = try ConsoleKeys.environment(body["environment"], default: gatewayEnvironment)
        }
    }

    /// Stores a key with `publicKey`, unless its team and key id are taken: Apple never reuses a key id, and replacing
    /// a key would silently change what its tokens are checked with.
    private func add(_ fields: KeyFields, publicKey: P256.Signing.PublicKey) async throws -> ProviderKey {
        let (teamID, keyID, topics, environment) = (fields.teamID, fields.keyID, fields.topics, fields.environment)
        if let existing = try await store.key(teamID: teamID, keyID: keyID) {
            throw Refusal(
                .conflict, "KeyExists",
                "key \(keyID) of team \(teamID) is already registered (\(existing.environment), created \(DeliveryTimeline.timestamp(existing.createdAt))"
                    + (existing.revokedAt == nil ? "" : ", revoked") + "); use another key id")
        }
        let record = ProviderKey(
            teamID: teamID, keyID: keyID, topics: topics, environment: environment,
            publicKeyPEM: publicKey.pemRepresentation, createdAt: clock.now())
        try await store.saveKey(record)
        directory.remember(record)
        return record
    }

    /// `POST /v1/keys/TEAM/KEY/revoke`: tokens the key signed are refused from now on (403 Forbidden).
    private func revoke(teamID: String, keyID: String) async throws -> Response {
        guard let key = try await store.revokeKey(teamID: teamID, keyID: keyID, at: clock.now()) else {
            throw Refusal(.notFound, "NotFound", "no key \(keyID) of team \(teamID) on this gateway; GET /v1/keys lists them")
        }
        directory.remember(key)
        return AdminAPI.json(.ok, .object(["key": Self.keyJSON(key)]))
    }

    static func keyJSON(_ key: ProviderKey) -> JSONValue {
        var fields: [String: JSONValue] = [
            "teamID": .string(key.teamID), "keyID": .string(key.keyID), "topics": .array(key.topics.map(JSONValue.string)),
            "environment": .string(key.environment.rawValue), "createdAt": .string(DeliveryTimeline.timestamp(key.createdAt)),
        ]
        if let revokedAt = key.revokedAt { fields["revokedAt"] = .string(DeliveryTimeline.timestamp(revokedAt)) }
        return .object(fields)
    }

    // MARK: Tokens

    /// `POST /v1/tokens`: the token of a new virtual device for an app (a device that never comes online).
    private func issue(_ body: [String: JSONValue]) async throws -> Response {
        let topic = body["topic"]?.stringValue ?? ""
        if let problem = TopicSyntax.bundleIDProblem(topic) { throw Refusal(.badRequest, "BadTopic", problem) }
        let environment = try Self.environment(body["environment"], default: environment)
        let record = try await store.issueVirtualToken(bundleID: topic, environment: environment, at: clock.now())
        directory.remember(record)
        var warnings: [JSONValue] = []
        if let pushType = PushType.suffixed(topic) {
            let bundleID = String(topic.dropLast(pushType.topicSuffix.count))
            warnings.append(
                .string(
                    "\(topic) ends in \(pushType)'s topic suffix; if the app is \(bundleID), issue the token for \(bundleID) "
                        + "and send \(pushType) pushes to it with apns-topic \(topic)"))
        }
        if case .array(let more)? = environmentWarning(environment) { warnings += more }
        var fields = Self.tokenFields(record)
        if !warnings.isEmpty { fields["warnings"] = .array(warnings) }
        return AdminAPI.json(.created, .object(fields))
    }

    /// `POST /v1/tokens/HEX/unregister` with `{"reason":"unregistered"|"expired"}` (default unregistered): the token
    /// takes no more pushes (410) and what was pending for it is discarded.
    private func unregister(_ hex: String, _ body: [String: JSONValue]) async throws -> Response {
        guard let token = DeviceToken(hex: hex) else {
            throw Refusal(.badRequest, "BadDeviceToken", "a device token is 64 hexadecimal digits (or more, up to 200)")
        }
        let retirement: DeviceRecord.Retirement
        switch body["reason"] {
        case nil, .null?: retirement = .unregistered
        case let value?:
            guard let named = value.stringValue.flatMap(DeviceRecord.Retirement.init(rawValue:)) else {
                throw Refusal(
                    .badRequest, "BadReason",
                    "reason is unregistered (the app was removed: 410 Unregistered) or expired (the token was replaced: 410 ExpiredToken)")
            }
            retirement = named
        }
        guard let record = try await store.retire(token, as: retirement, at: clock.now()) else {
            throw Refusal(.notFound, "NotFound", "no device token \(token.redacted) on this gateway")
        }
        directory.remember(record)
        // The event stream and the device that holds the token (if linked) hear of it before the answer.
        await retirements.check()
        return AdminAPI.json(.ok, .object(Self.tokenFields(record)))
    }

    private static func tokenFields(_ record: DeviceRecord) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "deviceToken": .string(record.token.hex), "topic": .string(record.topic), "environment": .string(record.environment.rawValue),
            "createdAt": .string(DeliveryTimeline.timestamp(record.createdAt)),
        ]
        if let owner = record.owner { fields["deviceID"] = .string(owner) }
        if let retiredAt = record.retiredAt {
            fields["retired"] = .object([
                "at": .string(DeliveryTimeline.timestamp(retiredAt)), "as": .string((record.retirement ?? .unregistered).rawValue),
            ])
        }
        return fields
    }

    // MARK: Requests

    /// A request the console refuses, with what to do instead.
    private struct Refusal: Error {
        var status: HTTPResponse.Status
        var reason: String
        var message: String

        init(_ status: HTTPResponse.Status, _ reason: String, _ message: String) {
            self.status = status
            self.reason = reason
            self.message = message
        }
    }

    private static func answering(_ work: () async throws -> Response) async throws -> Response {
        do {
            return try await work()
        } catch let refusal as Refusal {
            return AdminAPI.error(refusal.status, refusal.reason, refusal.message)
        }
    }

    /// The request's JSON object; an empty body is `{}`.
    private static func object(in request: Request) async throws -> [String: JSONValue] {
        let body = try await request.body.collect(upTo: 16 * 1024)
        if body.readableBytes == 0 { return [:] }
        guard let object = (try? JSONValue.parse(Data(body.readableBytesView)))?.objectValue else {
            throw Refusal(.badRequest, "BadRequest", "send a JSON object (Content-Type: application/json)")
        }
        return object
    }

    private static func topics(_ value: JSONValue?) throws -> [String] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?:
            var topics: [String] = []
            for item in items {
                guard let topic = item.stringValue else { throw Refusal(.badRequest, "BadTopic", "topics is a list of bundle ids (strings)") }
                if let problem = TopicSyntax.bundleIDProblem(topic) { throw Refusal(.badRequest, "BadTopic", problem) }
                if !topics.contains(topic) { topics.append(topic) }
            }
            return topics
        default:
            throw Refusal(
                .badRequest, "BadTopic", #"topics is a list of bundle ids, like ["com.example.app"]; leave it empty for every app of the team"#)
        }
    }

    private static func environment(_ value: JSONValue?, default gatewayEnvironment: APNsEnvironment) throws -> APNsEnvironment {
        switch value {
        case nil, .null?: return gatewayEnvironment
        case let value?:
            guard let named = value.stringValue.flatMap(APNsEnvironment.init(rawValue:)) else {
                throw Refusal(.badRequest, "BadEnvironment", "environment is development or production (this gateway serves \(gatewayEnvironment))")
            }
            return named
        }
    }

    /// A note when a key or token belongs to the environment this gateway does not serve.
    private func environmentWarning(_ other: APNsEnvironment) -> JSONValue? {
        guard other != environment else { return nil }
        return .array([
            .string("this gateway serves \(environment): it refuses \(other) keys (403 BadEnvironmentKeyIdInToken) and tokens (400 BadDeviceToken)")
        ])
    }
}
