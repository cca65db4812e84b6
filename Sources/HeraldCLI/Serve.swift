import ArgumentParser
import Foundation
import HeraldConsole
import HeraldGateway
import HeraldPostgres
import HeraldStore
import HeraldWire
import Logging
import NIOCore

/// `herald serve`: run the gateway.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway: the APNs provider API, the console and the store.",
        discussion: """
            Each setting can also come from an environment variable, HERALD_ and its name in capitals \
            (--provider-port: HERALD_PROVIDER_PORT, --config: HERALD_CONFIG), or from a key of the --config file \
            ("provider-port": 2197). A flag wins over the variable, which wins over the file, which wins over the \
            default; --print-config shows where each value comes from. docs/configuration.md has them all.
            """
    )

    // Every setting is optional here, so that a flag given is told from one left out: a flag wins over its
    // HERALD_* variable, which wins over the --config file, which wins over the default (ServeSettings).
    @Option(name: .customLong("config"), help: "A JSON configuration file (docs/configuration.md); also HERALD_CONFIG.")
    var configFile: String?

    @Flag(name: .customLong("print-config"), help: "Print the effective configuration and where each value comes from, then exit.")
    var printConfig = false

    @Option(name: .customLong("data-dir"), help: "Herald's data directory (default: $XDG_DATA_HOME/herald).")
    var dataDirectory: String?

    @Option(help: "Address to listen on. (default: \(ServeSettings().host))")
    var host: String?

    @Option(
        name: .customLong("console-host"),
        help:
            "Address the console (pages, admin API, /metrics) listens on; beyond loopback it is served over HTTPS. (default: \(ServeSettings().consoleHost))"
    )
    var consoleHost: String?

    @Option(name: .customLong("provider-port"), help: "Provider API port (HTTP/2). (default: \(ServeSettings().providerPort))")
    var providerPort: Int?

    @Option(
        name: .customLong("device-port"),
        help: "Device link port: `herald device` connects here (WebSocket over TLS). (default: \(ServeSettings().devicePort))")
    var devicePort: Int?

    @Option(name: .customLong("console-port"), help: "Console port: /healthz, /metrics, admin API. (default: \(ServeSettings().consolePort))")
    var consolePort: Int?
    @Option(
        name: .customLong("channels-port"),
        help: "Broadcast channel management API port (HTTP/2, as Apple's management host). (default: \(ServeSettings().channelsPort))")
    var channelsPort: Int?
    @Option(
        name: .customLong("webpush-port"),
        help: "Web Push port: subscriptions' endpoints (RFC 8030, HTTP/2 and HTTP/1.1). (default: \(ServeSettings().webPushPort))")
    var webPushPort: Int?

    @Flag(inversion: .prefixedNo, help: "Serve h2c (HTTP/2 without TLS, prior knowledge) on the provider port. (default: TLS)")
    var plaintext: Bool?

    @Option(help: "The APNs environment this gateway plays. (default: \(ServeSettings().environment))")
    var environment: APNsEnvironment?

    @Flag(
        inversion: .prefixedNo,
        help: "Honour fault rules (herald faults) in the production environment too; development always does. (default: no)")
    var allowFaults: Bool?

    @Option(
        help:
            "Where to keep data: sqlite (the file in the data directory), a path to a SQLite file, or postgres://USER:PASS@HOST:PORT/DB (several nodes may share one). (default: \(ServeSettings().store))"
    )
    var store: String?

    @Option(name: .customLong("tls-cert"), help: "PEM server certificate (default: one from the local CA in DATA_DIR/tls).")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "PEM private key for --tls-cert.")
    var tlsKey: String?

    @Option(
        name: .customLong("idle-timeout"),
        help: "Seconds without traffic before a provider connection is closed with GOAWAY IdleTimeout. (default: \(ServeSettings().idleTimeout))")
    var idleTimeout: Int?

    @Option(
        name: .customLong("device-rate-limit"),
        help: "Notifications per second one device token may receive. (default: \(ServeSettings().displayValue(of: .deviceRateLimit)))")
    var deviceRateLimit: Double?

    @Flag(inversion: .prefixedNo, help: "Do not print the quick start. (default: print it)")
    var quiet: Bool?

    @Option(name: .customLong("node-name"), help: "What the cluster calls this node. (default: the host name and the provider port, HOST:PORT)")
    var nodeName: String?

    @Flag(help: "A test gateway: its data in a new temporary directory, removed at exit; ports not given are any free ones.")
    var ephemeral = false

    @Option(help: "Keys, tokens, storage policies and fault rules to start with: a JSON file (docs/ci.md).")
    var fixture: String?

    @Option(
        help:
            "Once listening, write the ports, the CA, the admin token and the fixture's keys and tokens to this JSON file (removed at exit).")
    var readyFile: String?

    /// How long a commit waits while another process (a CLI command) holds the database: then the providers
    /// waiting for it get 503 ServiceUnavailable, never a request that hangs for GRDB's default 10 s.
    static let storeBusyTimeout: Duration = .seconds(1)

    func validate() throws {
        let settings = try settings()
        if ephemeral, settings.origin(of: .dataDirectory) != .builtInDefault {
            throw ValidationError(
                "--ephemeral makes its own temporary data directory; drop \(settings.origin(of: .dataDirectory).subject(.dataDirectory))")
        }
        if ephemeral, StoreLocation(settings.store).text != "sqlite" {
            throw ValidationError(
                "--ephemeral keeps its data in a temporary directory's SQLite file; drop \(settings.origin(of: .store).subject(.store))")
        }
        let store = StoreLocation(settings.store)
        if store.isPostgres {
            do throws(StoreError) {
                _ = try PostgresURL(store.text)
            } catch {
                throw ValidationError(error.message)  // what is wrong with the URL, never its password
            }
        }
    }

    func run() async throws {
        var settings = try settings()
        if printConfig {
            printNow(settings.report(environment: Self.environmentVariables))
            return
        }
        var temporary: String?
        if ephemeral {
            temporary = try settings.makeEphemeral()
        }
        // A ready file of an earlier run must not pass for this one's: gone until this gateway listens, and at its exit.
        if let readyFile { try? FileManager.default.removeItem(atPath: readyFile) }
        defer {
            if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
            if let readyFile { try? FileManager.default.removeItem(atPath: readyFile) }
        }
        let fixture = try self.fixture.map { try ServeFixture(path: $0, environment: settings.environment) }
        let logger = Logger(label: "herald")
        if let raised = OpenFileLimit.raiseToHard() {
            logger.info(
                "open-file limit raised to the hard limit: one file per device link",
                metadata: [
                    "from": "\(raised.from)", "to": "\(raised.to)",
                ])
        }
        let directory = try DataDirectoryOption.prepare(settings.dataDirectoryLayout, quietly: true)  // the quick start names it
        // A node of a cluster is a new one each run: its devices' links and its lease start afresh.
        let opened = try await StoreLocation(settings.store).open(
            in: directory, nodeID: UUID().uuidString, busyTimeout: Self.storeBusyTimeout, logger: logger)
        do {
            var fixture = fixture
            try await fixture?.apply(to: opened.store, keyDirectory: URL(fileURLWithPath: directory.path).appendingPathComponent("fixture"))
            try await serve(store: opened.store, settings: settings, directory: directory, fixture: fixture, logger: logger)
            await opened.close()
        } catch {
            await opened.close()
            throw error
        }
    }

    private func serve(
        store: any Store, settings: ServeSettings, directory: DataDirectory, fixture: ServeFixture?, logger: Logger
    ) async throws {
        let configuration = settings.gatewayConfiguration
        let gateway = try await Gateway.start(
            configuration: configuration, store: store, dataDirectory: directory, console: Console.service, logger: logger)
        let quickStart = settings.quiet ? nil : try await QuickStart.prepare(directory: directory, store: store, environment: settings.environment)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await gateway.run() }
            if let readyFile {
                try await ReadyFile.write(
                    to: readyFile, gateway: gateway, configuration: configuration, directory: directory, ephemeral: ephemeral, fixture: fixture)
            }
            if let quickStart {
                let consolePort = try await gateway.consolePort()
                let devicePort = try await gateway.devicePort()
                printNow(
                    quickStart.text(
                        configuration: configuration, providerPort: gateway.providerPort, devicePort: devicePort,
                        consolePort: consolePort, channelsPort: gateway.channelsPort, webPushPort: gateway.webPushPort,
                        caPath: gateway.caCertificatePath, dataDirectory: directory
                    ))
            }
            try await group.waitForAll()
        }
    }
}
