import ArgumentParser
import Foundation
import HeraldClient
import HeraldWire
import Logging

/// `herald send`: push a notification to one device or many, like `xcrun simctl push` or Knuff, against a
/// Herald gateway or Apple's APNs; `--dry-run` shows the request and its curl equivalent instead.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a notification to devices and print the status, apns-id, apns-unique-id and reason.",
        discussion: """
            One device prints the answer's fields; several (--device repeated, --devices FILE) or --count show a \
            progress bar and a table of outcomes by reason. --gateway development|production means Apple's APNs.
            """
    )

    @Option(help: "The gateway, e.g. https://localhost:2197 (http:// for a --plaintext gateway), or development|production for Apple's APNs.")
    var gateway: String

    @Option(help: "PEM of the CA to trust (the gateway's DATA_DIR/tls/ca.pem).")
    var ca: String?

    @Option(help: "Provider key (.p8) for token authentication.")
    var p8: String?

    @Option(name: .customLong("key-id"), help: "The key's 10-character id.")
    var keyID: String?

    @Option(name: .customLong("team-id"), help: "Your 10-character team id.")
    var teamID: String?

    @Option(help: "Client certificate for certificate authentication: PEM (its key in --cert-key or in the same file) or PKCS#12 (.p12).")
    var cert: String?

    @Option(name: .customLong("cert-key"), help: "The PEM certificate's private key.")
    var certKey: String?

    @Option(name: .customLong("cert-password"), help: "The .p12 bundle's passphrase.")
    var certPassword: String?

    @Option(
        help:
            "The app's bundle id (with the push type's suffix, e.g. .voip, where APNs wants one); a .apns file's \"Simulator Target Bundle\" when absent."
    )
    var topic: String?

    @Option(help: "A device token (hex); repeat for several devices.")
    var device: [String] = []

    @Option(help: "A file of device tokens, one per line (# comments and blank lines ignored).")
    var devices: String?

    @Option(
        name: .customLong("push-type"),
        help: "alert, background, voip, location, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls.")
    var pushType: String?

    @OptionGroup var liveActivity: LiveActivityOptions

    @Option(help: "A broadcast to every Live Activity subscribed to this channel (POST /4/broadcasts/apps/BUNDLE), instead of devices.")
    var channel: String?

    @Option(help: "10 (now), 5 (power-aware) or 1.")
    var priority: Int?

    @Option(help: "UNIX time after which the notification is discarded; 0 = deliver once or never.")
    var expiration: Int64?

    @Option(name: .customLong("collapse-id"), help: "Replaces an earlier notification with the same id (≤ 64 bytes).")
    var collapseID: String?

    @Option(name: .customLong("apns-id"), help: "Your own UUID for the notification (one notification only).")
    var apnsID: String?

    @Flag(name: .customLong("dry-run"), help: "Print the request and an equivalent curl command; send nothing.")
    var dryRun = false

    @Option(help: "Notifications to send in all, cycling through the devices (default: one per device).")
    var count: Int?

    @Option(help: "Notifications in flight at once.")
    var concurrency = 100

    @Option(help: "HTTP/2 connections at most.")
    var connections = 4

    @Option(help: "Seconds each notification may take, retries included.")
    var timeout: Double = 10

    @Option(help: "Attempts per notification for answers APNs says may succeed later (429, 5xx, Shutdown).")
    var attempts = 3

    @Argument(help: "The payload JSON file, or - for standard input. A .apns file works too.")
    var payload: String

    func validate() throws {
        _ = try endpoint()
        let tokenAuth = p8 != nil || keyID != nil || teamID != nil
        if tokenAuth {
            guard p8 != nil, let keyID, let teamID else {
                throw ValidationError("token authentication needs all of --p8, --key-id and --team-id")
            }
            try validateAppleID(keyID, name: "--key-id", example: "KEY1234567")
            try validateAppleID(teamID, name: "--team-id", example: "TEAM123456")
        } else if cert == nil {
            throw ValidationError(
                "authenticate with --p8, --key-id and --team-id, or with --cert (and --cert-key unless the PEM file holds the key, or a .p12)")
        }
        if let channel {
            guard device.isEmpty, devices == nil, count == nil else {
                throw ValidationError("--channel sends one broadcast to the channel's subscribers; leave out --device, --devices and --count")
            }
            guard BroadcastHead.isWellFormedChannelID(channel) else {
                throw ValidationError("--channel must be a channel id in base64, as `herald channels create` prints it")
            }
        } else if device.isEmpty && devices == nil {
            throw ValidationError("name a device with --device TOKEN (repeat it for several) or --devices FILE")
        }
        for token in device where DeviceToken(hex: token) == nil {
            throw ValidationError("--device must be a device token in hex, like the one `herald tokens issue` prints")
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if connections < 1 { throw ValidationError("--connections must be at least 1") }
        if attempts < 1 { throw ValidationError("--attempts must be at least 1") }
        if !(timeout > 0) { throw ValidationError("--timeout must be a number of seconds above 0") }
        if let apnsID, APNsID.parse(apnsID) == nil {
            throw ValidationError("--apns-id must be a UUID like 123e4567-e89b-12d3-a456-4266554400a0")
        }
    }

    static func isPKCS12(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return lowered.hasSuffix(".p12") || lowered.hasSuffix(".pfx")
    }

    func endpoint() throws -> APNsEndpoint {
        switch gateway {
        case "development", "sandbox": return .development
        case "production": return .production
        default:
            guard let url = URL(string: gateway), ["https", "http"].contains(url.scheme ?? ""), url.host != nil,
                let endpoint = try? APNsEndpoint.custom(url)
            else {
                throw ValidationError("--gateway must look like https://localhost:2197 (or be development or production), not \"\(gateway)\"")
            }
            return endpoint
        }
    }

    func run() async throws {
        let request = try SendRequest(self)
        if dryRun {
            DryRun(command: self, request: request).print()
            return
        }
        var configuration = APNsClientConfiguration(endpoint: request.endpoint, authentication: try authentication())
        configuration.trustRootsPath = ca
        configuration.maximumConnections = connections
        configuration.requestTimeout = .milliseconds(Int64(timeout * 1000))
        configuration.retryPolicy.maximumAttempts = attempts
        let client: APNsClient
        do {
            client = try APNsClient(configuration: configuration, logger: Logger(label: "herald.send"))
        } catch {
            throw ValidationError(error.message)
        }
        let total = count ?? request.devices.count
        let allSucceeded: Bool
        if channel != nil || total == 1 {
            allSucceeded = await sendOne(request, client: client)
        } else {
            allSucceeded = await SendBatch(request: request, total: total, concurrency: concurrency).run(client)
        }
        await client.shutdown()
        if !allSucceeded { throw ExitCode(1) }
    }

    func authentication() throws -> APNsAuthentication {
        do {
            if let p8, let keyID, let teamID {
                return try .token(p8File: p8, keyID: keyID, teamID: teamID)
            }
            if let cert, Self.isPKCS12(cert), certKey == nil {
                return try .certificate(pkcs12File: cert, passphrase: certPassword)
            }
            return try .certificate(pemFile: cert ?? "", keyFile: certKey ?? cert ?? "")
        } catch  where certKey == nil && cert.map(Self.isPKCS12) == false {
            throw ValidationError("\(error.message); give the certificate's key with --cert-key, or join them: cat cert.pem key.pem > apns.pem")
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// One notification (or broadcast): the answer's fields, one per line.
    private func sendOne(_ request: SendRequest, client: APNsClient) async -> Bool {
        let idName = channel == nil ? "apns-id" : "apns-request-id"
        do {
            let result: APNsSendResult
            if let channel {
                result = try await client.broadcast(request.notification, toChannel: channel)
            } else {
                result = try await client.send(request.notification, to: request.devices[0])
            }
            print("status: 200")
            print("\(idName): \(APNsID.format(result.apnsID))")
            if let uniqueID = result.uniqueID { print("apns-unique-id: \(APNsID.format(uniqueID))") }
            return true
        } catch {
            if error.code == .rejected {
                print("status: \(error.status ?? 0)")
                if let id = error.apnsID { print("\(idName): \(APNsID.format(id))") }
                if let id = error.uniqueID { print("apns-unique-id: \(APNsID.format(id))") }
                if let reason = error.reason { print("reason: \(reason)") }
                if let timestamp = error.timestamp { print("timestamp: \(Int64(timestamp.timeIntervalSince1970 * 1000))") }
            } else {
                var message = "error: \(error.message)"
                if let underlying = error.underlying { message += " (\(underlying))" }
                FileHandle.standardError.write(Data((message + "\n").utf8))
            }
            return false
        }
    }
}
