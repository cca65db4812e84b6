import ArgumentParser
import Crypto
import Foundation
import HeraldWire

/// `herald jwt`: the Push Notifications Console's JWT tools — generate a provider token, or validate one.
struct JWT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate a provider token (JWT) from a .p8 key, or validate one.",
        subcommands: [JWTGenerate.self, JWTValidate.self],
        defaultSubcommand: JWTGenerate.self
    )
}

/// `herald jwt [generate]`: print a provider token, e.g. for curl.
struct JWTGenerate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Print a provider token signed with a .p8 key; APNs accepts it for an hour."
    )

    @Option(help: "Provider key (.p8).")
    var p8: String

    @Option(name: .customLong("key-id"), help: "The key's 10-character id.")
    var keyID: String

    @Option(name: .customLong("team-id"), help: "Your 10-character team id.")
    var teamID: String

    @Option(name: .customLong("issued-at"), help: "The iat claim, in UNIX seconds (default: now).")
    var issuedAt: Int64?

    func validate() throws {
        try validateAppleID(keyID, name: "--key-id", example: "KEY1234567")
        try validateAppleID(teamID, name: "--team-id", example: "TEAM123456")
    }

    func run() async throws {
        let date = issuedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        print(try ProviderToken.sign(teamID: teamID, keyID: keyID, issuedAt: date, key: loadPrivateKey(p8)))
    }
}

/// `herald jwt validate`: decode a provider token and check what APNs checks — signature, key, team, age.
struct JWTValidate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a provider token's signature (against a key), key id, team and age, as APNs would."
    )

    @Argument(help: "The token, or - to read it from standard input.")
    var token: String

    @Option(help: "The .p8 key that should have signed it.")
    var p8: String?

    @Option(name: .customLong("public-key"), help: "The public key (PEM) that should verify it, instead of --p8.")
    var publicKey: String?

    @Option(name: .customLong("key-id"), help: "The key id the token should name.")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "The team id the token should name.")
    var teamID: String?

    @Option(help: "Judge the age at this UNIX time instead of now.")
    var now: Int64?

    func run() async throws {
        let text =
            token == "-"
            ? String(decoding: try readInput("-", what: "the token"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            : token
        let parsed: ProviderToken
        do {
            parsed = try ProviderToken.parse(text)
        } catch {
            print("✗ \(error.detail)")
            print("invalid: APNs would answer InvalidProviderToken")
            throw ExitCode(1)
        }
        var problems: [String] = []
        let parts = text.split(separator: ".")
        print("header: \(Base64URL.decode(parts[0]).map { String(decoding: $0, as: UTF8.self) } ?? "")")
        print("claims: \(Base64URL.decode(parts[1]).map { String(decoding: $0, as: UTF8.self) } ?? "")")

        check("key id \(parsed.keyID)", expected: keyID, actual: parsed.keyID, what: "--key-id", problems: &problems)
        check("team id \(parsed.teamID)", expected: teamID, actual: parsed.teamID, what: "--team-id", problems: &problems)

        let moment = now.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        let age = parsed.ageInSeconds(at: moment)
        let issued = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: parsed.issuedAt))
        if parsed.isIssuedInTheFuture(at: moment) {
            problems.append("issued in the future")
            print("✗ issued \(issued), \(Self.minutes(-age)) from now: check this machine's clock")
        } else if parsed.isExpired(at: moment) {
            problems.append("expired (ExpiredProviderToken)")
            print("✗ issued \(issued), \(Self.minutes(age)) ago: APNs refuses tokens older than an hour (ExpiredProviderToken); sign a new one")
        } else {
            print("✓ issued \(issued), \(Self.minutes(max(0, age))) ago; valid for \(Self.minutes(Int64(ProviderToken.lifetime) - max(0, age))) more")
        }

        if let key = try signingKey() {
            do {
                try parsed.verify(with: key)
                print("✓ signature verifies with \(p8 ?? publicKey ?? "")")
            } catch {
                problems.append("bad signature (InvalidProviderToken)")
                print("✗ the signature does not verify with \(p8 ?? publicKey ?? ""): APNs would answer InvalidProviderToken")
            }
        } else {
            print("- signature not checked: give --p8 or --public-key")
        }
        if problems.isEmpty {
            print("valid")
        } else {
            print("invalid: " + problems.joined(separator: "; "))
            throw ExitCode(1)
        }
    }

    private func check(_ label: String, expected: String?, actual: String, what: String, problems: inout [String]) {
        guard let expected else {
            print("- \(label)")
            return
        }
        if expected == actual {
            print("✓ \(label) matches \(what)")
        } else {
            problems.append("\(what) mismatch")
            print("✗ \(label), but \(what) is \(expected)")
        }
    }

    private func signingKey() throws -> P256.Signing.PublicKey? {
        if let p8 { return try loadPrivateKey(p8).publicKey }
        guard let publicKey else { return nil }
        let data = try readInput(publicKey, what: "the public key")
        guard let pem = String(data: data, encoding: .utf8), let key = try? P256.Signing.PublicKey(pemRepresentation: pem) else {
            throw ValidationError("\(publicKey) is not a P-256 public key in PEM form")
        }
        return key
    }

    private static func minutes(_ seconds: Int64) -> String {
        seconds < 120 ? "\(seconds) s" : "\(seconds / 60) min"
    }
}
