import ArgumentParser
import Foundation
import NIOSSL
import UserNotifications

/// Where the provider API is and how to authenticate to it.
struct ProviderOptions: ParsableArguments {
    @Option(help: "The provider API, e.g. https://localhost:2197.")
    var provider: String

    @Option(help: "A provider token (`herald jwt …`).")
    var jwt: String

    @Option(help: "PEM of the CA to trust (DATA_DIR/tls/ca.pem).")
    var ca: String?

    @Option(help: "The app's bundle id.")
    var topic: String

    @Option(help: "HTTP/2 connections to the provider API.")
    var connections = 4
}

/// Where the device link is.
struct DeviceOptions: ParsableArguments {
    @Option(
        name: .customLong("device-gateway"),
        help: "The device link, e.g. https://localhost:5223. Repeat with other loopback addresses (https://127.0.0.2:5223) to open more than one address's ~28,000 ephemeral ports allow."
    )
    var deviceGateways: [String]

    @Flag(name: .customLong("skip-hostname-check"), help: "Trust the CA but not the host name (for loopback addresses the certificate does not list).")
    var skipHostnameCheck = false

    @Flag(
        name: .customLong("device-journal"),
        help: "Give the devices GatewayLink's duplicate journal (one SQLite file for all of them). Off by default: it is the device's own disk work, which a real device does on its own cores, not the gateway's."
    )
    var journal = false

    /// The journal in `directory` when `--device-journal` asks for one.
    func makeJournal(in directory: URL) throws -> DeliveryJournal? {
        journal ? try DeliveryJournal(path: directory.appendingPathComponent("journal.sqlite").path) : nil
    }

    /// What the devices keep, for the report.
    var journalSummary: String {
        journal ? "with one shared duplicate journal" : "without a duplicate journal"
    }

    /// Devices are spread over the addresses round-robin.
    func gateway(for index: Int) -> String { deviceGateways[index % deviceGateways.count] }

    func tls(caPath: String?) throws -> TLSConfiguration? {
        guard skipHostnameCheck else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .noHostnameVerification
        if let caPath { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caPath)) }
        return tls
    }

    func validate() throws {
        if deviceGateways.isEmpty { throw ValidationError("name the device link with --device-gateway https://HOST:PORT") }
    }
}
