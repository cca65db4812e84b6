import ArgumentParser
import Crypto
import Foundation
import HeraldStore
import HeraldWire

/// `herald keys`: the provider authentication keys (`.p8`) a gateway accepts.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage provider authentication keys (.p8).",
        subcommands: [Create.self, Import.self, Revoke.self, List.self]
    )

    /// Options shared by create and import.
    struct KeyOptions: ParsableArguments {
        @OptionGroup var store: StoreOption

        @Option(name: .customLong("team-id"), help: "Your 10-character team id, e.g. TEAM123456.")
        var teamID: String

        @Option(name: .customLong("key-id"), help: "The 10-character key id, e.g. KEY1234567.")
        var keyID: String

        @Option(name: .customLong("topic"), help: "Limit the key to this bundle id (repeat for several); none = all the team's topics.")
        var topics: [String] = []

        @Option(help: "The environment the key belongs to: development or production.")
        var environment = APNsEnvironment.development

        func validate() throws {
            try validateAppleID(teamID, name: "--team-id", example: "TEAM123456")
            try validateAppleID(keyID, name: "--key-id", example: "KEY1234567")
            try validateTopics(topics)
        }

        @Flag(help: "Replace a key already registered under this team and key id (tokens its old private key signs are then refused).")
        var replace = false

        /// Registers `publicKey` once the key id is found free, or `--replace` was given.
        func register(_ publicKey: P256.Signing.PublicKey, beforeSaving prepare: () throws -> Void = {}) async throws {
            try await store.withStore(creating: true) { store, name in
                if !replace, let existing = try await store.key(teamID: teamID, keyID: keyID) {
                    let scope = existing.topics.isEmpty ? "all topics" : existing.topics.joined(separator: ", ")
                    throw ValidationError(
                        "key \(keyID) of team \(teamID) is already registered in \(name) (\(existing.environment), \(scope)); "
                            + "use another --key-id, or add --replace to replace it (tokens signed with its old private key will be refused)"
                    )
                }
                try prepare()
                try await store.saveKey(
                    ProviderKey(
                        teamID: teamID, keyID: keyID, topics: topics, environment: environment,
                        publicKeyPEM: publicKey.pemRepresentation, createdAt: Date()
                    ))
            }
        }

        var scope: String { topics.isEmpty ? "all topics of team \(teamID)" : topics.joined(separator: ", ") }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key: writes the private .p8 (0600) and registers its public half.")

        @OptionGroup var options: KeyOptions

        @Option(help: "Where to write the private key (.p8).")
        var out: String

        func validate() throws {
            if FileManager.default.fileExists(atPath: out) {
                throw ValidationError("\(out) already exists; choose another --out or remove it first")
            }
        }

        func run() async throws {
            let key = P256.Signing.PrivateKey()
            try await options.register(key.publicKey) {
                do {
                    try DataDirectory.writeSecret(PEMFile.contents(key.pemRepresentation), to: out)
                } catch {
                    throw ValidationError("\(error)")  // a misuse of --out, like the other checks of the arguments
                }
            }
            print("created key \(options.keyID) for \(options.scope) (\(options.environment)); private key in \(out)")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register an existing .p8 key (only its public half is stored).")

        @OptionGroup var options: KeyOptions

        @Option(help: "The private key file (.p8) to import, or its public key in PEM.")
        var p8: String

        func run() async throws {
            let data = try readInput(p8, what: "the key file")
            guard let (publicKey, _) = ProviderKeyPEM.publicKey(in: String(decoding: data, as: UTF8.self)) else {
                throw ValidationError("\(p8) is not a P-256 private key in PEM (.p8) form, nor the public key of one")
            }
            try await options.register(publicKey)
            print("imported key \(options.keyID) for \(options.scope) (\(options.environment))")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key: tokens it signed are refused with 403 Forbidden.")

        @OptionGroup var store: StoreOption

        @Option(name: .customLong("team-id"), help: "The key's team id.")
        var teamID: String

        @Option(name: .customLong("key-id"), help: "The key id.")
        var keyID: String

        func run() async throws {
            try await store.withStore(creating: false) { store, name in
                guard try await store.revokeKey(teamID: teamID, keyID: keyID, at: Date()) != nil else {
                    throw ValidationError("no key \(keyID) for team \(teamID) in \(name); list them with `herald keys list`")
                }
            }
            print("revoked key \(keyID) of team \(teamID)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys the gateway accepts.")

        @OptionGroup var store: StoreOption

        func run() async throws {
            for key in try await store.withStore(creating: false, { store, _ in try await store.keys() }) {
                let scope = key.topics.isEmpty ? "all topics" : key.topics.joined(separator: ",")
                let state = key.revokedAt == nil ? "" : "  revoked"
                print("\(key.teamID)  \(key.keyID)  \(key.environment)  \(scope)\(state)")
            }
        }
    }
}

/// Reads a `.p8` private key with a message a person can act on.
func loadPrivateKey(_ path: String) throws -> P256.Signing.PrivateKey {
    let data = try readInput(path, what: "the key file")
    guard let pem = String(data: data, encoding: .utf8), let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
        throw ValidationError("\(path) is not a P-256 private key in PEM (.p8) form")
    }
    return key
}
