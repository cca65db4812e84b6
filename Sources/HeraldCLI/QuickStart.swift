import Crypto
import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire

/// The demo key and device `herald serve` sets up so the first push works without reading docs.
struct QuickStart {
    static let teamID = "DEMOTEAM01"
    static let topic = "com.example.herald"

    var keyID: String
    var keyPath: String
    var deviceToken: String
    var jwt: String

    /// Creates (once per data directory and environment) a demo key and a device, and signs a token to try.
    static func prepare(directory: DataDirectory, store: any Store, environment: APNsEnvironment) async throws -> QuickStart {
        let keyID = environment == .development ? "DEMOKEY001" : "DEMOKEY002"
        let folder = directory.url.appendingPathComponent("quickstart/\(environment)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyPath = folder + "/AuthKey_\(keyID).p8"
        let tokenPath = folder + "/device-token"

        // Nodes sharing a store (a cluster) share the demo key and device: each node would otherwise save a key of its
        // own under the same key id, and the key the first node printed would stop working once the second started.
        let cluster = store as? any ClusterStore
        let localPEM = (try? String(contentsOfFile: keyPath, encoding: .utf8)).flatMap { try? P256.Signing.PrivateKey(pemRepresentation: $0) }?
            .pemRepresentation
        var keyPEM = localPEM ?? P256.Signing.PrivateKey().pemRepresentation
        if let cluster {
            let candidate = keyPEM
            keyPEM = String(decoding: try await cluster.sharedSecret(named: "quickstart-key-\(environment)") { Data(candidate.utf8) }, as: UTF8.self)
        }
        let privateKey = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        if keyPEM != localPEM { try DataDirectory.writeSecret(PEMFile.contents(keyPEM), to: keyPath) }
        if try await store.key(teamID: teamID, keyID: keyID)?.publicKeyPEM != privateKey.publicKey.pemRepresentation {
            try await store.saveKey(
                ProviderKey(
                    teamID: teamID, keyID: keyID, topics: [], environment: environment,
                    publicKeyPEM: privateKey.publicKey.pemRepresentation, createdAt: Date()
                ))
        }

        let localToken = (try? String(contentsOfFile: tokenPath, encoding: .utf8)).flatMap {
            DeviceToken(hex: $0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        var deviceToken = localToken ?? DeviceToken.random()
        if let cluster {
            let candidate = deviceToken.hex
            let shared = String(
                decoding: try await cluster.sharedSecret(named: "quickstart-device-\(environment)") { Data(candidate.utf8) }, as: UTF8.self)
            deviceToken = DeviceToken(hex: shared) ?? deviceToken
        }
        if deviceToken != localToken { try DataDirectory.writePublic(Data(deviceToken.hex.utf8), to: tokenPath) }
        if try await store.device(deviceToken) == nil {
            try await store.saveDevice(DeviceRecord(token: deviceToken, topic: topic, environment: environment, createdAt: Date()))
        }
        let jwt = try ProviderToken.sign(teamID: teamID, keyID: keyID, issuedAt: Date(), key: privateKey)
        return QuickStart(keyID: keyID, keyPath: keyPath, deviceToken: deviceToken.hex, jwt: jwt)
    }

    func text(
        configuration: GatewayConfiguration,
        providerPort: Int,
        devicePort: Int,
        consolePort: Int,
        channelsPort: Int,
        webPushPort: Int,
        caPath: String?,
        dataDirectory: DataDirectory
    ) -> String {
        let scheme = configuration.plaintext ? "http" : "https"
        let host = ["127.0.0.1", "0.0.0.0", "::"].contains(configuration.host) ? "localhost" : configuration.host
        let url = "\(scheme)://\(host):\(providerPort)"
        let herald = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? "herald"
        let caFlag = caPath.map { " --ca \($0)" } ?? ""
        let curlTLS = configuration.plaintext ? "--http2-prior-knowledge" : "--http2" + (caPath.map { " --cacert \($0)" } ?? "")
        let payload = #"{"aps":{"alert":{"title":"Hello","body":"from Herald"}}}"#
        let consoleHost = ["127.0.0.1", "0.0.0.0", "::"].contains(configuration.consoleHost) ? "localhost" : configuration.consoleHost
        let console = "\(configuration.consoleUsesTLS ? "https" : "http")://\(consoleHost):\(consolePort)"
        let consoleCA = configuration.consoleUsesTLS ? (caPath.map { " --cacert \($0)" } ?? "") : ""
        return """
            Herald gateway (\(configuration.environment)) — provider API \(url) (HTTP/2\(configuration.plaintext ? ", plaintext" : " over TLS")), device link \(scheme)://\(host):\(devicePort), console \(console)
              CA to trust:  \(caPath ?? "(your own certificate)")
              Demo key:     \(keyPath)  (team \(Self.teamID), key \(keyID), all topics)
              Demo device:  \(deviceToken)  (topic \(Self.topic); a virtual device that stays offline)
              Console:      \(console)/ (sign in with the admin token in \(dataDirectory.adminTokenPath))
              Browser:      \(console)/device makes this browser a device; \(console)/ sends to it
              Admin API:    curl\(consoleCA) -H "authorization: bearer $(cat \(dataDirectory.adminTokenPath))" \(console)/v1/devices
              Channels:     \(scheme)://\(host):\(channelsPort)/1/apps/BUNDLE/channels (broadcast channel management, as Apple's management host)
              Web Push:     \(scheme)://\(host):\(webPushPort)/push/… (RFC 8030 endpoints; `herald webpush subscribe` makes one)

            Make this machine a device (another terminal); it prints its own device token to send to:
              \(herald) device --gateway \(scheme)://\(host):\(devicePort)\(caFlag) --topic \(Self.topic)

            Send a notification:
              echo '\(payload)' | \(herald) send --gateway \(url)\(caFlag) --p8 \(keyPath) --key-id \(keyID) --team-id \(Self.teamID) --topic \(Self.topic) --device \(deviceToken) -

            Or with curl (this token is good for an hour; `herald jwt` signs a new one):
              curl -v \(curlTLS) -H 'authorization: bearer \(jwt)' -H 'apns-topic: \(Self.topic)' -H 'apns-push-type: alert' -d '\(payload)' \(url)/3/device/\(deviceToken)

            """
    }
}
