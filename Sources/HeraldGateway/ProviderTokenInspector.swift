public import Foundation
import HeraldStore
public import HeraldWire
import NIOCore
import NIOPosix

/// A provider token checked exactly as the provider API checks it on a fresh connection, with every finding kept:
/// what the console's JWT validator shows.
public struct ProviderTokenInspector: Sendable {
    private let directory: Directory
    private let environment: APNsEnvironment
    private let verifier = TokenVerifier(cacheLimit: 64)

    /// - Parameters:
    ///   - directory: The provider API's own key cache, so unknown and revoked keys answer as there.
    ///   - environment: The gateway's environment, which a token's key must belong to.
    init(directory: Directory, environment: APNsEnvironment) {
        self.directory = directory
        self.environment = environment
    }

    /// The decoded header and claims (even of a token that fails), the key, the age, and the provider API's answer:
    /// `{"status":200}` or `{"status":403,"reason":"ExpiredProviderToken","message":…}`.
    public func inspect(jwt: String, topic: String?, pushType: PushType = .alert, now: Date) async -> JSONValue {
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

}
