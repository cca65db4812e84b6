import ArgumentParser
import Crypto
import Foundation
import HeraldStore
import HeraldWire

/// `herald serve --fixture FILE.json`: what a test gateway starts with, the same every run (docs/ci.md). Its fields
/// are the admin API's:
///
/// ```json
/// {"keys": [{"teamID": "TEAM123456", "keyID": "KEY1234567", "topics": ["com.example.app"], "p8File": "AuthKey.p8"}],
///  "tokens": [{"name": "alice", "topic": "com.example.app"}, {"topic": "com.example.app", "token": "ab12…"}],
///  "policies": {"com.example.app": {"kind": "all", "cap": 100}},
///  "faults": [{"match": {"token": "ab12…"}, "action": {"kind": "answer", "status": 410}}]}
/// ```
///
/// A key's private half comes from `pem` (its text) or `p8File` (a path, relative to the fixture); without either,
/// one is made and written to the data directory. A token is `token` (hex), or made from its `name`: the first 32
/// bytes of SHA-256 of `herald-fixture:NAME`, the same every run. Fault rules are kept for the run; a rule's
/// `match.token` may name a token of the fixture as `@NAME`.
struct ServeFixture {
    struct Key {
        var record: ProviderKey
        /// The `.p8` file a provider signs with: the one given, or the one made.
        var p8Path: String?
        /// A key the fixture did not give: made now, written to `p8Path`.
        var made: P256.Signing.PrivateKey?
    }

    struct Token {
        var name: String?
        var record: DeviceRecord
    }

    var keys: [Key] = []
    var tokens: [Token] = []
    var policies: [(bundleID: String, policy: StoragePolicy)] = []
    var faults: [FaultRule] = []

    /// Reads and checks the file; `environment` is the gateway's, the default of every key and token.
    ///
    /// - Throws: `ValidationError` naming the file, the entry and what to write.
    init(path: String, environment: APNsEnvironment, now: Date = Date()) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read the fixture \(path) (--fixture): no such file or not readable")
        }
        let object: [String: JSONValue]
        do {
            guard let parsed = try JSONValue.parse(data).objectValue else { throw Problem("it is not a JSON object") }
            object = parsed
        } catch let problem as Problem {
            throw ValidationError("the fixture \(path): \(problem.message)")
        } catch {
            throw ValidationError("the fixture \(path) is not JSON: \(error)")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            let known: Set = ["keys", "tokens", "policies", "faults"]
            if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
                throw Problem("it has no field \"\(unknown)\"; a fixture takes keys, tokens, policies and faults")
            }
            for (index, entry) in try Self.array(object["keys"], "keys").enumerated() {
                keys.append(try Self.key(entry, at: "keys[\(index)]", base: base, environment: environment, now: now))
            }
            for (index, entry) in try Self.array(object["tokens"], "tokens").enumerated() {
                tokens.append(try Self.token(entry, at: "tokens[\(index)]", environment: environment, now: now))
            }
            if let policies = object["policies"] {
                guard let entries = policies.objectValue else { throw Problem("\"policies\" is an object of bundle id → policy") }
                for (bundleID, value) in entries.sorted(by: { $0.key < $1.key }) {
                    self.policies.append((bundleID, try Self.policy(value, at: "policies.\(bundleID)")))
                }
            }
            let named = Dictionary(tokens.compactMap { token in token.name.map { ($0, token.record.token.hex) } }, uniquingKeysWith: { $1 })
            for (index, entry) in try Self.array(object["faults"], "faults").enumerated() {
                var rule: FaultRule
                let definition = try Self.namingTokens(entry, named, at: "faults[\(index)]")
                do {
                    rule = try FaultRule(json: definition, now: now)
                } catch {
                    throw Problem("faults[\(index)]: \(error.message)")
                }
                if entry["id"] == nil { rule.id = "fixture-\(index + 1)" }
                rule.persistent = true  // applied with the store before the gateway starts, which removes transient rules
                faults.append(rule)
            }
        } catch let problem as Problem {
            throw ValidationError("the fixture \(path): \(problem.message)")
        }
    }

    /// Puts everything in the store; a key or token already there from an earlier run with this fixture is kept.
    ///
    /// - Parameter keyDirectory: where made keys' `.p8` files go.
    mutating func apply(to store: any Store, keyDirectory: URL) async throws {
        for index in keys.indices {
            let record = keys[index].record
            if let made = keys[index].made {
                try FileManager.default.createDirectory(at: keyDirectory, withIntermediateDirectories: true)
                let file = keyDirectory.appendingPathComponent("AuthKey_\(record.keyID).p8")
                try PEMFile.contents(made.pemRepresentation).write(to: file, options: .atomic)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
                keys[index].p8Path = file.path
            }
            if let existing = try await store.key(teamID: record.teamID, keyID: record.keyID) {
                guard existing.publicKeyPEM == record.publicKeyPEM else {
                    throw ValidationError(
                        "the fixture's key \(record.keyID) of team \(record.teamID) is in the store with another public key; use another key id")
                }
                continue
            }
            try await store.saveKey(record)
        }
        for token in tokens where try await store.device(token.record.token) == nil {
            try await store.saveDevice(token.record)
        }
        for (bundleID, policy) in policies { try await store.setStoragePolicy(policy, bundleID: bundleID) }
        for rule in faults { try await store.saveFaultRule(rule) }
    }

    // MARK: Reading entries

    private struct Problem: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    private static func array(_ value: JSONValue?, _ name: String) throws -> [JSONValue] {
        guard let value else { return [] }
        guard case .array(let entries) = value else { throw Problem("\"\(name)\" is an array") }
        return entries
    }

    private static func key(_ entry: JSONValue, at place: String, base: URL, environment: APNsEnvironment, now: Date) throws -> Key {
        let teamID = entry["teamID"]?.stringValue ?? ""
        let keyID = entry["keyID"]?.stringValue ?? ""
        if let problem = AppleID.problem(teamID, name: "\(place).teamID", example: "TEAM123456") { throw Problem(problem) }
        if let problem = AppleID.problem(keyID, name: "\(place).keyID", example: "KEY1234567") { throw Problem(problem) }
        let topics = try strings(entry["topics"], at: "\(place).topics")
        for topic in topics {
            if let problem = TopicSyntax.bundleIDProblem(topic) { throw Problem("\(place).topics: \(problem)") }
        }
        let keyEnvironment = try self.environment(entry["environment"], at: place, default: environment)
        var pem = entry["pem"]?.stringValue
        var p8Path: String?
        if let file = entry["p8File"]?.stringValue {
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : base.appendingPathComponent(file)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw Problem("\(place).p8File: cannot read \(url.path)")
            }
            pem = String(decoding: data, as: UTF8.self)
            p8Path = url.path
        }
        var made: P256.Signing.PrivateKey?
        let publicKey: P256.Signing.PublicKey
        if let pem {
            guard let (key, _) = ProviderKeyPEM.publicKey(in: pem) else {
                throw Problem("\(place): the key is not a P-256 key; give an APNs .p8 file (-----BEGIN PRIVATE KEY-----) or its public key")
            }
            publicKey = key
        } else {
            let key = P256.Signing.PrivateKey()
            made = key
            publicKey = key.publicKey
        }
        let record = ProviderKey(
            teamID: teamID, keyID: keyID, topics: topics, environment: keyEnvironment, publicKeyPEM: publicKey.pemRepresentation, createdAt: now)
        return Key(record: record, p8Path: p8Path, made: made)
    }

    private static func token(_ entry: JSONValue, at place: String, environment: APNsEnvironment, now: Date) throws -> Token {
        let topic = entry["topic"]?.stringValue ?? ""
        if let problem = TopicSyntax.bundleIDProblem(topic) { throw Problem("\(place).topic: \(problem)") }
        let name = entry["name"]?.stringValue
        let token: DeviceToken
        if let hex = entry["token"]?.stringValue {
            guard let parsed = DeviceToken(hex: hex) else { throw Problem("\(place).token is a device token in hex (64 digits)") }
            token = parsed
        } else if let name, !name.isEmpty {
            token = DeviceToken(bytes: Array(SHA256.hash(data: Data("herald-fixture:\(name)".utf8))))
        } else {
            throw Problem("\(place) needs \"token\" (hex) or \"name\" (its token is then the same every run)")
        }
        let record = DeviceRecord(
            token: token, topic: topic, environment: try self.environment(entry["environment"], at: place, default: environment), createdAt: now)
        return Token(name: name, record: record)
    }

    /// A rule whose `match.token` is `@NAME` matches the fixture's token of that name.
    private static func namingTokens(_ rule: JSONValue, _ named: [String: String], at place: String) throws -> JSONValue {
        guard var object = rule.objectValue, var match = object["match"]?.objectValue, let given = match["token"]?.stringValue,
            given.hasPrefix("@")
        else { return rule }
        guard let hex = named[String(given.dropFirst())] else {
            throw Problem(
                "\(place).match.token \(given) names no token of the fixture (its tokens' names: \(named.keys.sorted().joined(separator: ", ")))")
        }
        match["token"] = .string(hex)
        object["match"] = .object(match)
        return .object(object)
    }

    private static func policy(_ value: JSONValue, at place: String) throws -> StoragePolicy {
        switch value["kind"]?.stringValue {
        case "latest": return .latest
        case "all":
            let cap = value["cap"].map(\.integerValue) ?? Int64(StoragePolicy.defaultCap)
            guard let cap, cap > 0 else {
                throw Problem("\(place).cap is a number of notifications, 1 or more")
            }
            return .all(cap: Int(cap))
        default:
            throw Problem("\(place) is {\"kind\": \"latest\"} or {\"kind\": \"all\", \"cap\": 100}")
        }
    }

    private static func strings(_ value: JSONValue?, at place: String) throws -> [String] {
        guard let value else { return [] }
        guard case .array(let items) = value else { throw Problem("\(place) is an array of bundle ids") }
        return try items.map { item in
            guard let text = item.stringValue else { throw Problem("\(place) is an array of bundle ids") }
            return text
        }
    }

    private static func environment(_ value: JSONValue?, at place: String, default: APNsEnvironment) throws -> APNsEnvironment {
        guard let value else { return `default` }
        guard let name = value.stringValue, let environment = APNsEnvironment(rawValue: name) else {
            throw Problem("\(place).environment is development or production")
        }
        return environment
    }

    /// What the ready file says of the fixture: each key's `.p8` and each token with its name.
    var readyJSON: [String: JSONValue] {
        [
            "keys": .array(
                keys.map { key in
                    var fields: [String: JSONValue] = ["teamID": .string(key.record.teamID), "keyID": .string(key.record.keyID)]
                    if let path = key.p8Path { fields["p8"] = .string(path) }
                    return .object(fields)
                }),
            "tokens": .array(
                tokens.map { token in
                    var fields: [String: JSONValue] = [
                        "token": .string(token.record.token.hex), "topic": .string(token.record.topic),
                        "environment": .string(token.record.environment.rawValue),
                    ]
                    if let name = token.name { fields["name"] = .string(name) }
                    return .object(fields)
                }),
            "faults": .array(faults.map { .string($0.id) }),
        ]
    }
}
