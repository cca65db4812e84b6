import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire

/// `herald serve --ready-file PATH`: written once the gateway listens, for a test harness to read (docs/ci.md):
///
/// ```json
/// {"provider": "https://localhost:41234", "providerPort": 41234, "devicePort": 41235, "consolePort": 41236,
///  "channelsPort": 41237, "webPushPort": 41238, "webPush": "https://localhost:41238", "console": "http://127.0.0.1:41236", "ca": "/tmp/herald-…/tls/ca.pem", "adminToken": "…",
///  "dataDir": "/tmp/herald-…", "environment": "development", "ephemeral": true,
///  "keys": [{"teamID": "TEAM123456", "keyID": "KEY1234567", "p8": "/tmp/herald-…/fixture/AuthKey_KEY1234567.p8"}],
///  "tokens": [{"name": "alice", "token": "…", "topic": "com.example.app", "environment": "development"}], "faults": ["fixture-1"]}
/// ```
///
/// It is written to a file beside it and renamed into place, so a reader never sees half of it.
enum ReadyFile {
    static func write(
        to path: String, gateway: Gateway, configuration: GatewayConfiguration, directory: DataDirectory, ephemeral: Bool,
        fixture: ServeFixture?
    ) async throws {
        let consolePort = try await gateway.consolePort()
        let devicePort = try await gateway.devicePort()
        let scheme = configuration.plaintext ? "http" : "https"
        // A loopback or wildcard address is reached as localhost, a name the gateway's certificate has.
        let reachable = { (host: String) in ["127.0.0.1", "0.0.0.0", "::", "::1"].contains(host) ? "localhost" : host }
        let host = reachable(configuration.host)
        let consoleName = configuration.consoleUsesTLS ? reachable(configuration.consoleHost) : configuration.consoleHost
        let consoleHost = consoleName.contains(":") ? "[\(consoleName)]" : consoleName
        var fields: [String: JSONValue] = [
            "provider": .string("\(scheme)://\(host):\(gateway.providerPort)"),
            "providerPort": .integer(Int64(gateway.providerPort)), "devicePort": .integer(Int64(devicePort)),
            "consolePort": .integer(Int64(consolePort)), "channelsPort": .integer(Int64(gateway.channelsPort)),
            "webPushPort": .integer(Int64(gateway.webPushPort)), "webPush": .string("\(scheme)://\(host):\(gateway.webPushPort)"),
            "console": .string("\(configuration.consoleUsesTLS ? "https" : "http")://\(consoleHost):\(consolePort)"),
            "adminToken": .string(gateway.adminToken), "dataDir": .string(directory.path),
            "environment": .string(configuration.environment.rawValue), "ephemeral": .bool(ephemeral),
        ]
        if !configuration.plaintext, let ca = gateway.caCertificatePath { fields["ca"] = .string(ca) }
        for (key, value) in fixture?.readyJSON ?? [:] { fields[key] = value }
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
        try JSONValue.object(fields).encoded().write(to: URL(fileURLWithPath: temporary))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)  // it holds the admin token
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }
}
