import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire

/// `herald channels`: an app's broadcast channels (iOS 18) through the channel management API, on a gateway's
/// `--channels-port` or Apple's management host.
struct Channels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list, show and delete an app's broadcast channels (Live Activities, iOS 18).",
        discussion: """
            --gateway is the channel management API: a gateway's --channels-port (https://localhost:2195), or \
            development|production for Apple's management hosts. create prints the new channel's id and list one id \
            per line, for scripts.
            """,
        subcommands: [Create.self, List.self, Show.self, Delete.self]
    )

    /// What every channels command needs: where, as whom, and which app.
    struct Connection: ParsableArguments {
        @Option(help: "The channel management API, e.g. https://localhost:2195, or development|production for Apple's.")
        var gateway: String

        @Option(help: "PEM of the CA to trust (the gateway's DATA_DIR/tls/ca.pem).")
        var ca: String?

        @Option(help: "Provider key (.p8).")
        var p8: String

        @Option(name: .customLong("key-id"), help: "The key's 10-character id.")
        var keyID: String

        @Option(name: .customLong("team-id"), help: "Your 10-character team id.")
        var teamID: String

        @Option(help: "The app's bundle id (without a push type's suffix).")
        var bundle: String

        func validate() throws {
            _ = try endpoint()
            try validateAppleID(keyID, name: "--key-id", example: "KEY1234567")
            try validateAppleID(teamID, name: "--team-id", example: "TEAM123456")
            try validateTopics([bundle])
        }

        func endpoint() throws -> APNsEndpoint {
            switch gateway {
            case "development", "sandbox": return .developmentChannels
            case "production": return .productionChannels
            default:
                guard let url = URL(string: gateway), ["https", "http"].contains(url.scheme ?? ""), url.host != nil,
                    let endpoint = try? APNsEndpoint.custom(url)
                else {
                    throw ValidationError(
                        "--gateway must look like https://localhost:2195 (or be development or production), not \"\(gateway)\"")
                }
                return endpoint
            }
        }

        /// Runs `body` with a client, closing it after; a refusal becomes a message naming APNs' status and reason.
        func withClient<T>(_ body: (APNsChannelClient) async throws(APNsClientError) -> T) async throws -> T {
            let client = try APNsChannelClient(
                endpoint: try endpoint(), authentication: try .token(p8File: p8, keyID: keyID, teamID: teamID), trustRootsPath: ca)
            do {
                let result = try await body(client)
                await client.close()
                return result
            } catch {
                await client.close()
                throw ValidationError(Self.message(error))
            }
        }

        static func message(_ error: APNsClientError) -> String {
            guard error.code == .rejected, let status = error.status else { return error.description }
            return "the channel management API answered \(status) \(error.reason?.rawValue ?? "without a reason")"
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel and print its id.")

        @OptionGroup var connection: Connection

        @Option(
            name: .customLong("storage-policy"),
            help: "0: no message stored (devices online get broadcasts); 1: the most recent one kept for devices that come back.")
        var storagePolicy = 1

        func validate() throws {
            guard ChannelStoragePolicy(rawValue: storagePolicy) != nil else {
                throw ValidationError("--storage-policy is 0 (no message stored) or 1 (most recent message stored)")
            }
        }

        func run() async throws {
            let policy = ChannelStoragePolicy(rawValue: storagePolicy) ?? .mostRecentMessageStored
            let id = try await connection.withClient { client throws(APNsClientError) in
                try await client.create(bundleID: connection.bundle, storagePolicy: policy)
            }
            printNow(id)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the app's channel ids, one per line.")

        @OptionGroup var connection: Connection

        func run() async throws {
            let ids = try await connection.withClient { client throws(APNsClientError) in try await client.channels(bundleID: connection.bundle) }
            for id in ids { printNow(id) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a channel's storage policy and push type.")

        @OptionGroup var connection: Connection

        @Option(help: "The channel's id, as create printed it.")
        var channel: String

        func run() async throws {
            let policy = try await connection.withClient { client throws(APNsClientError) in
                try await client.storagePolicy(ofChannel: channel, bundleID: connection.bundle)
            }
            printNow("\(channel)\n  message-storage-policy: \(policy)\n  push-type: LiveActivity")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel; its id is never used again.")

        @OptionGroup var connection: Connection

        @Option(help: "The channel's id, as create printed it.")
        var channel: String

        func run() async throws {
            try await connection.withClient { client throws(APNsClientError) in try await client.delete(channel: channel, bundleID: connection.bundle)
            }
            printNow("deleted \(channel)")
        }
    }
}
