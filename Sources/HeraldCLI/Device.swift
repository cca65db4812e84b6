import ArgumentParser
import Crypto
import Foundation
import HeraldStore
import HeraldWire
import Logging
import Synchronization
import UserNotifications

/// `herald device`: this machine as a device of a Herald gateway.
struct Device: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be a device: register apps with a gateway and receive their notifications.",
        subcommands: [Run.self, Unregister.self, DeviceSettings.self, DeviceLocation.self],
        defaultSubcommand: Run.self
    )

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Register the apps, then print each notification as it arrives (reconnecting when the link drops)."
        )

        @OptionGroup var link: DeviceLinkOptions

        @Option(name: .customLong("topic"), help: "An app's bundle id; repeat for several apps.")
        var topics: [String] = []

        @Flag(help: "One JSON object per line, for scripts.")
        var json = false

        func validate() throws {
            if topics.isEmpty { throw ValidationError("name at least one app with --topic BUNDLE_ID") }
            try validateTopics(topics)
        }

        func run() async throws {
            let gatewayLink = try link.open()
            let printer = DevicePrinter(json: json)
            try await gatewayLink.run(topics: topics) { event in
                printer.show(event)
            } onDisconnect: { reason in
                printer.warn("link to \(gatewayLink.url) closed (\(reason)); reconnecting")
            }
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an app from this device: later pushes to its token get 410 Unregistered."
        )

        @OptionGroup var link: DeviceLinkOptions

        @Option(help: "The app's bundle id.")
        var topic: String

        @Flag(help: "Print the result as JSON.")
        var json = false

        func validate() throws { try validateTopics([topic]) }

        func run() async throws {
            let gatewayLink = try link.open()
            let outcome = Mutex<Result<String, ValidationError>?>(nil)
            let reason = try await gatewayLink.session(requests: [.unregister(topic: topic)]) { event in
                switch event {
                case .unregistered(_, let token):
                    outcome.withLock { $0 = .success(token) }
                    return false
                case .refused(_, let message):
                    outcome.withLock { $0 = .failure(ValidationError(message)) }
                    return false
                case .connected, .registered, .notification:
                    return true
                }
            }
            switch outcome.withLock({ $0 }) {
            case .success(let token)?:
                if json {
                    printNow(String(decoding: JSONValue.object([
                        "event": .string("unregistered"), "topic": .string(topic), "deviceToken": .string(token),
                    ]).encoded(), as: UTF8.self))
                } else {
                    printNow("unregistered \(topic); its token \(token) now answers 410 Unregistered")
                }
            case .failure(let error)?:
                throw error
            case nil:
                throw ValidationError("the gateway closed the link before answering (\(reason))")
            }
        }
    }
}

/// The options every `herald device` command shares.
struct DeviceLinkOptions: ParsableArguments {
    @Option(help: "The gateway's device port, e.g. https://localhost:5223.")
    var gateway: String

    @Option(help: "PEM file of the CA to trust (the gateway's DATA_DIR/tls/ca.pem).")
    var ca: String?

    @Option(name: .customLong("data-dir"), help: "Where the device keeps its key and what it has seen (default: $XDG_DATA_HOME/herald).")
    var dataDirectory: String = DataDirectory.defaultPath

    func open() throws -> GatewayLink {
        let directory = DataDirectory(path: dataDirectory).deviceDirectory
        let key: Crypto.P256.Signing.PrivateKey
        do {
            key = try DeviceKey.loadOrCreate(in: directory)
        } catch {
            throw ValidationError("cannot read or create the device key in \(directory.path): \(error.localizedDescription)")
        }
        if let ca, !FileManager.default.isReadableFile(atPath: ca) {
            throw ValidationError("cannot read the CA certificate \(ca): no such file or not readable")
        }
        let journal: DeliveryJournal
        do {
            journal = try DeliveryJournal(path: directory.appendingPathComponent("device.sqlite").path)
        } catch {
            throw ValidationError("cannot open the device journal in \(directory.path): \(error)")
        }
        do {
            return try GatewayLink(
                gateway: gateway, caPath: ca, key: key, journal: journal,
                logger: Logger(label: "herald.device", factory: { _ in SwiftLogNoOpLogHandler() })
            )
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
