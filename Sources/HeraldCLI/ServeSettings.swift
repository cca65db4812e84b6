import ArgumentParser
import Foundation
import HeraldStore
import HeraldWire

/// Everything `herald serve` can be told, with the built-in defaults: the effective configuration once
/// ``init(flags:environment:hostName:)`` has read the flags, the `HERALD_*` environment variables and the
/// configuration file, in that order of precedence (`ServeSettings+ConfigReader.swift`).
///
/// ```swift
/// let settings = try ServeSettings(flags: [.providerPort: .int(443)], environment: ["HERALD_HOST": "0.0.0.0"], hostName: "web-1")
/// settings.providerPort            // 443, from the flag
/// settings.origins[.host]          // .environment
/// settings.nodeName                // "web-1:443"
/// ```
struct ServeSettings: Sendable, Equatable {
    /// The configuration file read, if any (`--config`, `HERALD_CONFIG`).
    var configFile: String?
    /// The data directory: the SQLite store, the local CA, the admin token.
    var dataDirectory = DataDirectory.defaultPath
    /// Address the provider API and the device link listen on.
    var host = "127.0.0.1"
    /// Address the console (pages, admin API, /metrics) listens on; beyond loopback it is served over HTTPS.
    var consoleHost = "127.0.0.1"
    var providerPort = 2197
    var devicePort = 5223
    var consolePort = 8080
    var channelsPort = 2195
    var webPushPort = 8443
    /// Serve h2c (HTTP/2 without TLS, prior knowledge) on the provider port.
    var plaintext = false
    var environment = APNsEnvironment.development
    /// `sqlite` (the file in the data directory), a path to a SQLite file, or a `postgres://` URL (which may hold
    /// a password: ``maskingPassword(in:)`` before showing it).
    var store = "sqlite"
    /// PEM server certificate and its key; nil uses one from the local CA in `DATA_DIR/tls`.
    var tlsCertificate: String?
    var tlsKey: String?
    /// Seconds without traffic before a provider connection is closed with GOAWAY IdleTimeout.
    var idleTimeout = 3600
    /// Notifications per second one device token may receive.
    var deviceRateLimit = 2000.0
    /// Do not print the quick start.
    var quiet = false
    /// Honour fault rules in production (docs/faults.md).
    var allowFaults = false
    /// What the cluster calls this node; nil (the default) for ``nodeName``'s host name and provider port.
    var givenNodeName: String?
    /// The machine's host name, for the default node name.
    var hostName = "localhost"

    /// Where each setting's value came from; a setting missing here has its built-in default.
    var origins: [ServeSettingKey: ServeSettingOrigin] = [:]

    /// The built-in defaults.
    init() {}

    /// What the cluster calls this node: the one given, else the host name and the provider port (`web-1:2197`).
    var nodeName: String { givenNodeName ?? "\(hostName):\(providerPort)" }

    var dataDirectoryLayout: DataDirectory { DataDirectory(path: dataDirectory) }

    /// `serve --ephemeral`: a new temporary data directory (returned, for its removal at exit), and any free port for
    /// each port not set.
    mutating func makeEphemeral() throws -> String {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("herald-ephemeral-XXXXXX").path
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else {
            throw ValidationError("--ephemeral cannot make a temporary directory in \(FileManager.default.temporaryDirectory.path)")
        }
        dataDirectory = String(cString: made)
        for key in [ServeSettingKey.providerPort, .devicePort, .consolePort, .channelsPort, .webPushPort]
        where origin(of: key) == .builtInDefault {
            switch key {
            case .providerPort: providerPort = 0
            case .devicePort: devicePort = 0
            case .consolePort: consolePort = 0
            case .channelsPort: channelsPort = 0
            default: webPushPort = 0
            }
        }
        return dataDirectory
    }

    /// Where the value of `key` came from.
    func origin(of key: ServeSettingKey) -> ServeSettingOrigin {
        origins[key] ?? .builtInDefault
    }
}
