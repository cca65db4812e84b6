public import Crypto
public import Foundation
public import HeraldClient
import HeraldConsole
public import HeraldGateway
public import HeraldStore
public import HeraldTesting
public import HeraldWire
public import Logging
import NIOCore

/// A real gateway for tests: TLS + HTTP/2 on a free port, a temporary data directory, a manual clock,
/// and one team key and app ready to push to.
public final class TestGateway: Sendable {
    public static let teamID = "TEAM123456"
    public static let keyID = "KEY1234567"
    public static let topic = "com.example.app"

    public let gateway: Gateway
    public let store: any Store
    public let clock: ManualClock
    public let directory: DataDirectory
    public let configuration: GatewayConfiguration
    /// The key registered for ``teamID``/``keyID`` (team-scoped, development).
    public let privateKey: P256.Signing.PrivateKey
    /// A provider token for the default key, signed at start. Clients reuse one token per connection,
    /// and a different token within 20 minutes is `TooManyProviderTokenUpdates`.
    public let defaultJWT: String
    private let running: Task<Void, any Error>

    private init(
        gateway: Gateway,
        store: any Store,
        clock: ManualClock,
        directory: DataDirectory,
        configuration: GatewayConfiguration,
        privateKey: P256.Signing.PrivateKey,
        running: Task<Void, any Error>
    ) {
        self.gateway = gateway
        self.store = store
        self.clock = clock
        self.directory = directory
        self.configuration = configuration
        self.privateKey = privateKey
        self.running = running
        defaultJWT = (try? ProviderToken.sign(teamID: Self.teamID, keyID: Self.keyID, issuedAt: clock.now(), key: privateKey)) ?? ""

    }

    /// Starts a gateway; `configure` adjusts the configuration (ports are always free ones).
    ///
    /// - Parameter privateKey: The default key's private half: the nodes of one cluster share it (each registers it).
    public static func start(
        store: (any Store)? = nil,
        privateKey: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        logger: Logger = Logger(label: "herald-test", factory: { _ in SwiftLogNoOpLogHandler() }),
        configure: (inout GatewayConfiguration) -> Void = { _ in }
    ) async throws -> TestGateway {
        let directory = DataDirectory(path: TemporaryPath.make("herald-test"))
        var configuration = GatewayConfiguration()
        configuration.providerPort = 0
        configuration.consolePort = 0
        configuration.devicePort = 0
        configuration.channelsPort = 0
        configuration.webPushPort = 0
        configuration.directoryTimeToLive = .zero
        configuration.shutdownGracePeriod = .seconds(5)
        // Tests hold raw connections (and the console's client) longer than 20 s before their first request when the
        // parallel run loads the machine; the unused-connection rule has tests of its own on virtual time.
        configuration.unusedConnectionTimeout = .seconds(600)
        configure(&configuration)
        let clock = ManualClock(Date())
        let store = try store ?? FaultInjectingStore(wrapping: SQLiteStore(path: TemporaryPath.make("herald-test-store", suffix: ".sqlite")))
        let gateway = try await Gateway.start(
            configuration: configuration,
            store: store,
            dataDirectory: directory,
            clock: clock,
            signals: [],
            console: Console.service,
            logger: logger
        )
        let running = Task { try await gateway.run() }
        let test = TestGateway(
            gateway: gateway, store: store, clock: clock, directory: directory, configuration: configuration,
            privateKey: privateKey, running: running
        )
        try await test.addKey(teamID: teamID, keyID: keyID, key: test.privateKey)
        return test
    }

    /// The provider API URL.
    public var url: URL {
        URL(string: "\(configuration.plaintext ? "http" : "https")://localhost:\(gateway.providerPort)")!
    }

    public var caPath: String { LocalCertificateAuthority(dataDirectory: directory).caCertificatePath }

    /// Registers a key and returns its private half.
    @discardableResult
    public func addKey(
        teamID: String,
        keyID: String,
        topics: [String] = [],
        environment: APNsEnvironment = .development,
        key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()
    ) async throws -> P256.Signing.PrivateKey {
        try await store.saveKey(
            ProviderKey(
                teamID: teamID, keyID: keyID, topics: topics, environment: environment,
                publicKeyPEM: key.publicKey.pemRepresentation, createdAt: clock.now()
            ))
        return key
    }

    /// Registers a device for `topic` and returns its token in hex.
    public func issueToken(topic: String = TestGateway.topic, environment: APNsEnvironment = .development) async throws -> String {
        let token = DeviceToken.random()
        try await store.saveDevice(DeviceRecord(token: token, topic: topic, environment: environment, createdAt: clock.now()))
        return token.hex
    }

    /// A new provider token signed now (by the manual clock) with the default key, or as told.
    public func jwt(
        teamID: String = TestGateway.teamID,
        keyID: String = TestGateway.keyID,
        key: P256.Signing.PrivateKey? = nil,
        issuedAt: Date? = nil
    ) throws -> String {
        try ProviderToken.sign(teamID: teamID, keyID: keyID, issuedAt: issuedAt ?? clock.now(), key: key ?? privateKey)
    }

    /// Opens a new HTTP/2 connection trusting the gateway's CA.
    public func connect(clientCertificate: (certificatePath: String, keyPath: String)? = nil) async throws -> APNsConnection {
        try await APNsConnection.connect(to: url, trusting: caPath, clientCertificate: clientCertificate)
    }

    /// Issues a client certificate from the gateway's CA into the data directory.
    public func clientCertificate(topics: [String], environment: APNsEnvironment = .development) throws -> (certificatePath: String, keyPath: String)
    {
        let (certificate, key) = try LocalCertificateAuthority(dataDirectory: directory)
            .issueClientCertificate(topics: topics, environment: environment)
        let base = directory.path + "/client-\(UUID().uuidString)"
        try PEMFile.contents(certificate).write(to: URL(fileURLWithPath: base + ".pem"))
        try PEMFile.contents(key).write(to: URL(fileURLWithPath: base + "-key.pem"))
        return (base + ".pem", base + "-key.pem")
    }

    /// Starts a graceful shutdown and waits for the gateway to finish it.
    public func stop() async throws {
        await gateway.shutdown()
        try await running.value
        try? FileManager.default.removeItem(at: directory.url)
    }
}
