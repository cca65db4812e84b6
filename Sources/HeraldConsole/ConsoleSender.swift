import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldStore
import HeraldWire
import Hummingbird
import Logging
import ServiceLifecycle

/// The console's send form. It sends through the gateway's own provider API (HTTP/2, TLS unless `--plaintext`)
/// as any provider would, signed with the console's key, so the answer is exactly the one a provider gets. The same
/// request is offered as a curl line with a freshly signed JWT, and as a `herald send` line.
///
/// The console's key (team ``teamID``, key ``keyID``, every topic) is made on first use: its private half in
/// `DATA_DIR/console-key.p8` (0600), its public half registered like any other key, where the keys page shows it
/// and where it can be revoked.
actor ConsoleSender: Service {
    static let teamID = "HERALDCONS"
    static let keyID = "CONSOLEKEY"

    /// Where the provider API listens, and how a client on this machine reaches and trusts it.
    struct ProviderAddress: Sendable {
        /// The configured host (possibly a wildcard such as 0.0.0.0).
        var host: String
        var port: Int
        var usesTLS: Bool
        /// The CA (or certificate) a client must trust.
        var trustRootsPath: String?
    }

    private let store: any Store
    private let dataDirectory: DataDirectory
    nonisolated let environment: APNsEnvironment
    private let provider: ProviderAddress
    private let clock: any WallClock
    private let logger: Logger
    private var client: APNsClient?
    private var stopped = false

    init(
        store: any Store, dataDirectory: DataDirectory, environment: APNsEnvironment, provider: ProviderAddress, clock: any WallClock,
        logger: Logger
    ) {
        self.store = store
        self.dataDirectory = dataDirectory
        self.environment = environment
        self.provider = provider
        self.clock = clock
        self.logger = logger
    }

    var keyPath: String { dataDirectory.url.appendingPathComponent("console-key.p8").path }

    func run() async throws {
        try? await gracefulShutdown()
        stopped = true
        await client?.shutdown()
    }

    /// Sends `request` through the provider API and describes the answer: `{"status":200,"apnsID":…,"uniqueID":…}`,
    /// or the status, reason and message of a refusal (`"checkedBy":"client"` when it never left the console, as a
    /// provider's client library would refuse it too).
    func send(_ request: SendRequest) async -> JSONValue {
        let notification: APNsNotification
        let token: DeviceToken
        do throws(Rejection) {
            (notification, token) = try request.notification()
        } catch {
            return .object(Self.refusal(status: error.reason.status, reason: error.reason.rawValue, message: error.detail, checkedBy: "client"))
        }
        do {
            let result = try await client().send(notification, to: token)
            var fields: [String: JSONValue] = ["status": .integer(200), "apnsID": .string(APNsID.format(result.apnsID))]
            if let uniqueID = result.uniqueID { fields["uniqueID"] = .string(APNsID.format(uniqueID)) }
            return .object(fields)
        } catch let error as APNsClientError {
            var fields = Self.refusal(
                status: error.status ?? error.reason?.status ?? 0, reason: error.reason?.rawValue, message: error.message,
                checkedBy: error.code == .rejected ? "gateway" : "client")
            if let apnsID = error.apnsID { fields["apnsID"] = .string(APNsID.format(apnsID)) }
            if let timestamp = error.timestamp { fields["timestamp"] = .string(DeliveryTimeline.timestamp(timestamp)) }
            return .object(fields)
        } catch {
            return .object(Self.refusal(status: 0, reason: nil, message: "\(error)", checkedBy: "client"))
        }
    }

    /// Sends a broadcast (`POST /4/broadcasts/apps/BUNDLE`) through the provider API and describes the answer as
    /// ``send(_:)`` does, with the `apns-request-id` in `apnsID`.
    func broadcast(bundleID: String, channelID: String, payload: String, expiration: Int64, priority: Int) async -> JSONValue {
        let notification = APNsNotification(
            topic: bundleID + PushType.liveActivity.topicSuffix, pushType: .liveActivity, payload: Data(payload.utf8),
            priority: Priority(rawValue: priority), expiration: APNsExpiration(epochSeconds: expiration))
        do {
            let result = try await client().broadcast(notification, toChannel: channelID)
            var fields: [String: JSONValue] = ["status": .integer(200), "apnsID": .string(APNsID.format(result.apnsID))]
            if let uniqueID = result.uniqueID { fields["uniqueID"] = .string(APNsID.format(uniqueID)) }
            return .object(fields)
        } catch let error as APNsClientError {
            return .object(
                Self.refusal(
                    status: error.status ?? error.reason?.status ?? 0, reason: error.reason?.rawValue, message: error.message,
                    checkedBy: error.code == .rejected ? "gateway" : "client"))
        } catch {
            return .object(Self.refusal(status: 0, reason: nil, message: "\(error)", checkedBy: "client"))
        }
    }

    /// The request as a curl line with a JWT signed now, and as a `herald send` line; `visibleHost` is the provider
    /// API's host as the person's browser knows this gateway (used when the provider API listens on every address).
    func commands(_ request: SendRequest, visibleHost: String) async throws -> JSONValue {
        let key = try await signingKey()
        let jwt = try ProviderToken.sign(teamID: Self.teamID, keyID: Self.keyID, issuedAt: clock.now(), key: key)
        let host = ListenAddress.isWildcard(provider.host) ? visibleHost : provider.host
        let base = "\(provider.usesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(provider.port)"
        let headers = request.headers
        var curl = ["curl -sS -i " + (provider.usesTLS ? "--http2" : "--http2-prior-knowledge")]
        if provider.usesTLS, let trust = provider.trustRootsPath { curl.append("--cacert \(Self.quoted(trust))") }
        curl.append("-H \(Self.quoted("authorization: bearer \(jwt)"))")
        curl += headers.map { "-H \(Self.quoted("\($0.name): \($0.value)"))" }
        curl.append("--data-binary \(Self.quoted(request.payload))")
        curl.append(Self.quoted("\(base)/3/device/\(request.deviceToken)"))

        var send = ["printf '%s' \(Self.quoted(request.payload)) |", "herald send --gateway \(base)"]
        if provider.usesTLS, let trust = provider.trustRootsPath { send.append("--ca \(Self.quoted(trust))") }
        send.append("--p8 \(Self.quoted(keyPath)) --key-id \(Self.keyID) --team-id \(Self.teamID)")
        send.append("--topic \(Self.quoted(request.topic)) --device \(Self.quoted(request.deviceToken)) --push-type \(request.pushType)")
        if let priority = request.priority { send.append("--priority \(priority)") }
        if let expiration = request.expiration { send.append("--expiration \(expiration)") }
        if let collapseID = request.collapseID { send.append("--collapse-id \(Self.quoted(collapseID))") }
        if let apnsID = request.apnsID { send.append("--apns-id \(Self.quoted(apnsID))") }
        send.append("-")
        return .object([
            "curl": .string(curl.joined(separator: " \\\n  ")),
            "heraldSend": .string(send.joined(separator: " \\\n  ")),
            "jwtExpires": .string(DeliveryTimeline.timestamp(clock.now().addingTimeInterval(3600))),
        ])
    }

    private func client() async throws -> APNsClient {
        if let client { return client }
        guard !stopped else { throw APNsClientError(.shutdown, "the gateway is shutting down") }
        let key = try await signingKey()
        var configuration = APNsClientConfiguration(
            endpoint: APNsEndpoint(host: ListenAddress.local(provider.host), port: provider.port, usesTLS: provider.usesTLS),
            authentication: .token(privateKey: key, keyID: Self.keyID, teamID: Self.teamID))
        configuration.trustRootsPath = provider.trustRootsPath
        configuration.maximumConnections = 1
        // The form shows the gateway's first answer, as it is.
        configuration.retryPolicy = .never
        configuration.requestTimeout = .seconds(10)
        let client = try APNsClient(configuration: configuration, clock: clock, logger: logger)
        self.client = client
        return client
    }

    /// The console's private key, made and registered on first use; registered again (with the gateway's
    /// environment) when its record is missing or names another environment. A revoked key stays revoked.
    private func signingKey() async throws -> P256.Signing.PrivateKey {
        let key: P256.Signing.PrivateKey
        var isNew = false
        if let pem = try? String(contentsOfFile: keyPath, encoding: .utf8), let existing = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            key = existing
        } else {
            key = P256.Signing.PrivateKey()
            try DataDirectory.writeSecret(PEMFile.contents(key.pemRepresentation), to: keyPath)
            isNew = true
            logger.info("made the console's provider key", metadata: ["path": "\(keyPath)"])
        }
        let record = try await store.key(teamID: Self.teamID, keyID: Self.keyID)
        if isNew || record == nil || record?.environment != environment || record?.publicKeyPEM != key.publicKey.pemRepresentation {
            try await store.saveKey(
                ProviderKey(
                    teamID: Self.teamID, keyID: Self.keyID, topics: [], environment: environment,
                    publicKeyPEM: key.publicKey.pemRepresentation, createdAt: record?.createdAt ?? clock.now(),
                    revokedAt: isNew ? nil : record?.revokedAt))
        }
        return key
    }

    private static func refusal(status: Int, reason: String?, message: String, checkedBy: String) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["status": .integer(Int64(status)), "message": .string(message), "checkedBy": .string(checkedBy)]
        if let reason { fields["reason"] = .string(reason) }
        return fields
    }

    /// `text` in single quotes for a POSIX shell.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

/// What the send form sends: the fields of Apple's console, the payload as typed.
struct SendRequest: Sendable {
    var deviceToken: String
    var topic: String
    var pushType: PushType
    var priority: Int?
    var expiration: Int64?
    var collapseID: String?
    var apnsID: String?
    var payload: String

    /// Reads the form's JSON; nil when a required field is missing or a field has the wrong type.
    init?(json: JSONValue) {
        guard let token = json["deviceToken"]?.stringValue, let topic = json["topic"]?.stringValue, let payload = json["payload"]?.stringValue
        else { return nil }
        deviceToken = token.trimmingCharacters(in: .whitespaces)
        self.topic = topic.trimmingCharacters(in: .whitespaces)
        pushType = PushType(rawValue: json["pushType"]?.stringValue ?? "alert")
        priority = json["priority"]?.integerValue.map(Int.init)
        expiration = json["expiration"]?.integerValue
        collapseID = json["collapseID"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        apnsID = json["apnsID"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        self.payload = payload
    }

    /// The APNs headers of this request, in the order Apple's console shows them.
    var headers: [(name: String, value: String)] {
        var headers: [(String, String)] = [("apns-topic", topic), ("apns-push-type", pushType.rawValue)]
        if let priority { headers.append(("apns-priority", "\(priority)")) }
        if let expiration { headers.append(("apns-expiration", "\(expiration)")) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        return headers
    }

    /// The notification for the provider client, or the reason APNs would give for what cannot even be sent.
    func notification() throws(Rejection) -> (APNsNotification, DeviceToken) {
        guard let token = DeviceToken(hex: deviceToken) else {
            throw Rejection(.badDeviceToken, "a device token is an even number of hexadecimal digits (64 for Apple's)")
        }
        var id: UUID?
        if let apnsID {
            guard let parsed = APNsID.parse(apnsID) else {
                throw Rejection(.badMessageID, "apns-id must be a UUID like 123e4567-e89b-12d3-a456-4266554400a0")
            }
            id = parsed
        }
        let notification = APNsNotification(
            topic: topic, pushType: pushType, payload: Data(payload.utf8), priority: priority.map { Priority(rawValue: $0) },
            expiration: expiration.map(APNsExpiration.init(epochSeconds:)), collapseID: collapseID, apnsID: id)
        return (notification, token)
    }
}

extension ConsoleSender {
    /// `POST /v1/send` (the request, sent), `POST /v1/send/commands` (the request as curl and `herald send` lines),
    /// `POST /v1/check` (the payload checked by the gateway's rules) and `GET /v1/send/options` (the environment and
    /// the push types with their topic suffixes and payload limits).
    nonisolated func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("send") { request, _ in
            guard let send = try await Self.sendRequest(request) else { return Self.badForm }
            return AdminAPI.json(.ok, await self.send(send))
        }
        group.post("broadcast") { request, _ in
            let body = try await request.body.collect(upTo: 64 * 1024)
            guard let value = try? JSONValue.parse(Data(body.readableBytesView)), let bundleID = value["bundleID"]?.stringValue,
                let channelID = value["channelID"]?.stringValue, let payload = value["payload"]?.stringValue
            else {
                return AdminAPI.error(
                    .badRequest, "BadRequest", #"send {"bundleID":"…","channelID":"…","payload":"…"} with optional expiration and priority"#)
            }
            let expiration = value["expiration"]?.integerValue ?? 0
            let priority = Int(value["priority"]?.integerValue ?? 10)
            return AdminAPI.json(
                .ok, await self.broadcast(bundleID: bundleID, channelID: channelID, payload: payload, expiration: expiration, priority: priority))
        }
        group.post("send/commands") { request, _ in
            guard let send = try await Self.sendRequest(request) else { return Self.badForm }
            return AdminAPI.json(.ok, try await self.commands(send, visibleHost: Self.visibleHost(of: request)))
        }
        group.post("check") { request, _ in
            let body = try await request.body.collect(upTo: 64 * 1024)
            guard let value = try? JSONValue.parse(Data(body.readableBytesView)), let payload = value["payload"]?.stringValue else {
                return AdminAPI.error(.badRequest, "BadRequest", #"send {"payload":"…","pushType":"alert"}"#)
            }
            let pushType = PushType(rawValue: value["pushType"]?.stringValue ?? "alert")
            return AdminAPI.json(.ok, PayloadReport.check(payload, pushType: pushType))
        }
        group.get("send/options") { _, _ in
            AdminAPI.json(
                .ok,
                .object([
                    "environment": .string("\(self.environment)"),
                    "key": .object(["teamID": .string(Self.teamID), "keyID": .string(Self.keyID)]),
                    "pushTypes": .array(
                        PushType.allKnown.map {
                            .object([
                                "name": .string($0.rawValue), "topicSuffix": .string($0.topicSuffix),
                                "payloadLimit": .integer(Int64($0.maximumPayloadSize)),
                            ])
                        }),
                ]))
        }
    }

    private static let badForm = AdminAPI.error(
        .badRequest, "BadRequest",
        #"send {"deviceToken":"…","topic":"…","payload":"…"} with optional pushType, priority, expiration, collapseID, apnsID"#)

    private static func sendRequest(_ request: Request) async throws -> SendRequest? {
        let body = try await request.body.collect(upTo: 64 * 1024)
        return (try? JSONValue.parse(Data(body.readableBytesView))).flatMap(SendRequest.init(json:))
    }

    /// The host name the browser used for the console (its `Host` without the port).
    static func visibleHost(of request: Request) -> String {
        guard let authority = request.head.authority else { return "127.0.0.1" }
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return String(authority.split(separator: ":").first ?? "127.0.0.1")
    }
}
