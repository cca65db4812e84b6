import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire

/// `herald send`: push one notification to one device, like `xcrun simctl push` or Knuff.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one notification to a device and print the status, apns-id and reason."
    )

    @Option(help: "The gateway, e.g. https://localhost:2197 (http:// for a --plaintext gateway).")
    var gateway: String

    @Option(help: "PEM of the CA to trust (the gateway's DATA_DIR/tls/ca.pem).")
    var ca: String?

    @Option(help: "Provider key (.p8) for token authentication.")
    var p8: String?

    @Option(name: .customLong("key-id"), help: "The key's 10-character id.")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Your 10-character team id.")
    var teamID: String?

    @Option(help: "Client certificate (PEM) for certificate authentication instead of a .p8.")
    var cert: String?

    @Option(name: .customLong("cert-key"), help: "The client certificate's private key (PEM).")
    var certKey: String?

    @Option(help: "The app's bundle id (with the push type's suffix, e.g. .voip, where APNs wants one).")
    var topic: String

    @Option(help: "The device token (hex).")
    var device: String

    @Option(name: .customLong("push-type"), help: "alert, background, voip, liveactivity, …")
    var pushType: String?

    @Option(help: "10 (now), 5 (power-aware) or 1.")
    var priority: Int?

    @Option(help: "UNIX time after which the notification is discarded; 0 = deliver once or never.")
    var expiration: Int64?

    @Option(name: .customLong("collapse-id"), help: "Replaces an earlier notification with the same id (≤ 64 bytes).")
    var collapseID: String?

    @Option(name: .customLong("apns-id"), help: "Your own UUID for the notification.")
    var apnsID: String?

    @Argument(help: "The payload JSON file, or - for standard input. A .apns file works too.")
    var payload: String

    func validate() throws {
        guard let url = URL(string: gateway), ["https", "http"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--gateway must look like https://localhost:2197, not \"\(gateway)\"")
        }
        let tokenAuth = p8 != nil || keyID != nil || teamID != nil
        if tokenAuth {
            guard p8 != nil, let keyID, let teamID else {
                throw ValidationError("token authentication needs all of --p8, --key-id and --team-id")
            }
            try validateAppleID(keyID, name: "--key-id", example: "KEY1234567")
            try validateAppleID(teamID, name: "--team-id", example: "TEAM123456")
        } else if cert == nil || certKey == nil {
            throw ValidationError("authenticate with --p8, --key-id and --team-id, or with --cert and --cert-key")
        }
        if DeviceToken(hex: device) == nil {
            throw ValidationError("--device must be a device token in hex, like the one `herald tokens issue` prints")
        }
    }

    func run() async throws {
        let body = try Self.stripSimulatorTarget(readInput(payload, what: "the payload file"))
        var jwt: String?
        if let p8, let keyID, let teamID {
            jwt = try ProviderToken.sign(teamID: teamID, keyID: keyID, issuedAt: Date(), key: loadPrivateKey(p8))
        }
        let url = URL(string: gateway)!
        let connection: APNsConnection
        do {
            connection = try await APNsConnection.connect(
                to: url,
                trusting: ca,
                clientCertificate: cert.flatMap { cert in certKey.map { (cert, $0) } }
            )
        } catch {
            throw ValidationError("cannot connect to \(gateway): \(error)" + (ca == nil && url.scheme == "https" ? " (is --ca set to the gateway's DATA_DIR/tls/ca.pem?)" : ""))
        }
        let headers = APNsConnection.notificationHeaders(
            token: device, topic: topic, jwt: jwt, pushType: pushType.map(PushType.init(rawValue:)),
            priority: priority, expiration: expiration, collapseID: collapseID, apnsID: apnsID,
            authority: url.host ?? "localhost"
        )
        let response: APNsResponse
        do {
            response = try await connection.send(headers: headers, body: body)
        } catch {
            await connection.close()
            throw ValidationError("\(gateway) gave no answer: \(error)")
        }
        await connection.close()
        print("status: \(response.status)")
        if let id = response.apnsID { print("apns-id: \(id)") }
        if let id = response.uniqueID { print("apns-unique-id: \(id)") }
        if let reason = response.reason { print("reason: \(reason)") }
        if let timestamp = response.timestamp { print("timestamp: \(timestamp)") }
        if response.status != 200 { throw ExitCode(1) }
    }

    /// An `.apns` file may carry `"Simulator Target Bundle"` beside `aps`; APNs never sees that key.
    static func stripSimulatorTarget(_ body: Data) -> Data {
        guard case .object(var root)? = try? JSONValue.parse(body), root["Simulator Target Bundle"] != nil else { return body }
        root["Simulator Target Bundle"] = nil
        return JSONValue.object(root).encoded()
    }
}

/// `herald jwt`: sign a provider token, e.g. for curl.
struct JWT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a provider token (JWT) signed with a .p8 key; good for an hour.")

    @Option(help: "Provider key (.p8).")
    var p8: String

    @Option(name: .customLong("key-id"), help: "The key's 10-character id.")
    var keyID: String

    @Option(name: .customLong("team-id"), help: "Your 10-character team id.")
    var teamID: String

    func run() async throws {
        print(try ProviderToken.sign(teamID: teamID, keyID: keyID, issuedAt: Date(), key: loadPrivateKey(p8)))
    }
}
