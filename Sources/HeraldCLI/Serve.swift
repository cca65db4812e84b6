import ArgumentParser
import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire
import Logging
import NIOCore

/// `herald serve`: run the gateway.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway: the APNs provider API, the console and the store."
    )

    @OptionGroup var dataDirectory: DataDirectoryOption

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(
        name: .customLong("console-host"),
        help: "Address the console (pages, admin API, /metrics) listens on; beyond loopback it is served over HTTPS.")
    var consoleHost = "127.0.0.1"

    @Option(name: .customLong("provider-port"), help: "Provider API port (HTTP/2).")
    var providerPort = 2197

    @Option(name: .customLong("device-port"), help: "Device link port: `herald device` connects here (WebSocket over TLS).")
    var devicePort = 5223

    @Option(name: .customLong("console-port"), help: "Console port: /healthz, /metrics, admin API.")
    var consolePort = 8080

    @Flag(help: "Serve h2c (HTTP/2 without TLS, prior knowledge) on the provider port.")
    var plaintext = false

    @Option(help: "The APNs environment this gateway plays: development or production.")
    var environment = APNsEnvironment.development

    @Option(help: "Where to keep data: sqlite (the file in the data directory) or a path to a SQLite file.")
    var store = "sqlite"

    @Option(name: .customLong("tls-cert"), help: "PEM server certificate (default: one from the local CA in DATA_DIR/tls).")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "PEM private key for --tls-cert.")
    var tlsKey: String?

    @Option(name: .customLong("idle-timeout"), help: "Seconds without traffic before a provider connection is closed with GOAWAY IdleTimeout.")
    var idleTimeout = 3600

    @Option(name: .customLong("device-rate-limit"), help: "Notifications per second one device token may receive.")
    var deviceRateLimit = 2000.0

    @Flag(help: "Do not print the quick start.")
    var quiet = false

    /// How long a commit waits while another process (a CLI command) holds the database: then the providers
    /// waiting for it get 503 ServiceUnavailable, never a request that hangs for GRDB's default 10 s.
    static let storeBusyTimeout: Duration = .seconds(1)

    func validate() throws {
        for (name, port) in [("--provider-port", providerPort), ("--device-port", devicePort), ("--console-port", consolePort)]
        where !(0...65535).contains(port) {
            throw ValidationError("\(name) must be a port from 0 to 65535, not \(port)")
        }
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together; give both or neither")
        }
        if store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") {
            throw ValidationError("the PostgreSQL store is not built yet; use --store sqlite for now")
        }
        if idleTimeout < 1 { throw ValidationError("--idle-timeout must be at least 1 second") }
        if deviceRateLimit <= 0 { throw ValidationError("--device-rate-limit must be above 0") }
    }

    func run() async throws {
        let logger = Logger(label: "herald")
        if let raised = OpenFileLimit.raiseToHard() {
            logger.info(
                "open-file limit raised to the hard limit: one file per device link",
                metadata: [
                    "from": "\(raised.from)", "to": "\(raised.to)",
                ])
        }
        let directory = try dataDirectory.prepare(quietly: true)  // the quick start names it
        let sqlite = try DataDirectoryOption.open(store == "sqlite" ? directory.storePath : store, in: directory, busyTimeout: Self.storeBusyTimeout)

        var configuration = GatewayConfiguration()
        configuration.host = host
        configuration.consoleHost = consoleHost
        configuration.providerPort = providerPort
        configuration.consolePort = consolePort
        configuration.devicePort = devicePort
        configuration.plaintext = plaintext
        configuration.environment = environment
        configuration.tlsCertificatePath = tlsCertificate
        configuration.tlsKeyPath = tlsKey
        configuration.idleTimeout = .seconds(Int64(idleTimeout))
        configuration.deviceTokenRatePerSecond = deviceRateLimit
        configuration.deviceTokenBurst = deviceRateLimit * 2

        let gateway = try await Gateway.start(configuration: configuration, store: sqlite, dataDirectory: directory, logger: logger)
        let quickStart = quiet ? nil : try await QuickStart.prepare(directory: directory, store: sqlite, environment: environment)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await gateway.run() }
            if let quickStart {
                let consolePort = try await gateway.consolePort()
                let devicePort = try await gateway.devicePort()
                printNow(
                    quickStart.text(
                        configuration: configuration, providerPort: gateway.providerPort, devicePort: devicePort,
                        consolePort: consolePort, caPath: gateway.caCertificatePath, dataDirectory: directory
                    ))
            }
            try await group.waitForAll()
        }
    }
}
