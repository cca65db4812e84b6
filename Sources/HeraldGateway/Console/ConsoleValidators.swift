import Foundation
import HeraldStore
import HeraldWire
import Hummingbird
import NIOCore
import NIOPosix

/// The console's validators, as Apple's console has them: a provider JWT checked exactly as the provider API
/// would check it on a fresh connection, and a device token looked up.
struct ConsoleValidators: Sendable {
    let store: any Store
    let directory: Directory
    let verifier = TokenVerifier(cacheLimit: 64)
    let hub: DeviceHub
    let environment: APNsEnvironment
    /// The provider API's clock, so that a token's age is judged as the provider API judges it.
    let clock: any WallClock

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("validate/jwt") { request, _ in
            let body = try await request.body.collect(upTo: 16 * 1024)
            guard let value = try? JSONValue.parse(Data(body.readableBytesView)), let jwt = value["jwt"]?.stringValue else {
                return AdminAPI.error(.badRequest, "BadRequest", #"send {"jwt":"…"}, optionally with "topic" and "pushType""#)
            }
            let pushType = value["pushType"]?.stringValue.flatMap(PushType.init(rawValue:)) ?? .alert
            return AdminAPI.json(.ok, try await validate(jwt: jwt, topic: value["topic"]?.stringValue, pushType: pushType, now: clock.now()))
        }
        group.get("validate/token/:token") { _, context in
            try await lookUp(context.parameters.get("token") ?? "")
        }
    }

    /// The decoded header and claims (even of a token that fails), the key, the age, and the provider API's answer:
    /// `{"status":200}` or `{"status":403,"reason":"ExpiredProviderToken","message":…}`.
    func validate(jwt: String, topic: String?, pushType: PushType = .alert, now: Date) async throws -> JSONValue {
        var fields: [String: JSONValue] = [:]
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 3 {
            for (name, part) in [("header", parts[0]), ("claims", parts[1])] {
                if let data = Base64URL.decode(part), let json = try? JSONValue.parse(data) { fields[name] = json }
            }
        }
        do throws(Rejection) {
            let token = try ProviderToken.parse(jwt)
            fields["ageSeconds"] = .integer(token.ageInSeconds(at: now))
            // The provider API's own key cache and checks (unknown key, signature, revocation), so the answer is its.
            let key: ResolvedKey?
            do {
                key = try await directory.loadKey(teamID: token.teamID, keyID: token.keyID, on: MultiThreadedEventLoopGroup.singleton.any()).get()
            } catch {
                throw Rejection(.internalServerError, "the store cannot be read: \(error)")
            }
            if let record = key?.record {
                fields["key"] = .object([
                    "teamID": .string(record.teamID), "keyID": .string(record.keyID), "environment": .string("\(record.environment)"),
                    "topics": .array(record.topics.map(JSONValue.string)), "revoked": .bool(record.revokedAt != nil),
                ])
            }
            var verified: TokenVerifier.Verified?
            let record: ProviderKey
            do throws(Rejection) {
                record = try verifier.check(jwt, token, key: key, recent: &verified)
            } catch {
                if verified != nil { fields["signature"] = .string("valid") }  // a revoked key: the signature held
                throw error
            }
            fields["signature"] = .string("valid")
            var connection = ConnectionAuthState()
            try connection.admit(jwt: jwt, token: token, key: record, environment: environment, now: now)
            if let topic {
                let bundleID = pushType.bundleID(fromTopic: topic) ?? topic
                guard record.covers(bundleID: bundleID) else {
                    throw Rejection(.topicDisallowed, "key \(record.keyID) may not push to \(bundleID)")
                }
            }
            fields["status"] = .integer(200)
        } catch {
            fields["status"] = .integer(Int64(error.reason.status))
            fields["reason"] = .string(error.reason.rawValue)
            fields["message"] = .string(error.detail)
        }
        return .object(fields)
    }

    /// Which app and environment a device token belongs to, whether its device is online, and since when it no
    /// longer takes notifications.
    private func lookUp(_ hex: String) async throws -> Response {
        guard let token = DeviceToken(hex: hex) else {
            return AdminAPI.error(.badRequest, "BadDeviceToken", "a device token is 64 hexadecimal digits (or more, up to 200)")
        }
        guard let record = try await store.device(token) else {
            return AdminAPI.error(.notFound, "BadDeviceToken", "no device token \(hex) on this gateway (the provider API answers 400 BadDeviceToken)")
        }
        var fields: [String: JSONValue] = [
            "deviceToken": .string(record.token.hex), "topic": .string(record.topic), "environment": .string("\(record.environment)"),
            "createdAt": .string(AdminAPI.timestamp(record.createdAt)),
        ]
        if let owner = record.owner {
            fields["deviceID"] = .string(owner)
            fields["online"] = .bool(try await hub.onlineDeviceIDs(everywhereIn: store).contains(owner))
        } else {
            fields["virtual"] = .bool(true)
        }
        if let retiredAt = record.retiredAt, let retirement = record.retirement {
            fields["retired"] = .object(["at": .string(AdminAPI.timestamp(retiredAt)), "as": .string(retirement.rawValue)])
        }
        return AdminAPI.json(.ok, .object(fields))
    }
}
