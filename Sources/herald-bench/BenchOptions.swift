import ArgumentParser
import Foundation
import HeraldDevice
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
        help:
            "The device link, e.g. https://localhost:5223. Repeat with other loopback addresses (https://127.0.0.2:5223) to open more than one address's ~28,000 ephemeral ports allow."
    )
    var deviceGateways: [String]

    @Flag(
        name: .customLong("skip-hostname-check"),
        help: "Trust the CA but not the host name or address (for loopback addresses such as 127.0.0.2 the certificate does not list).")
    var skipHostnameCheck = false

    @Flag(
        name: .customLong("gateway-link"),
        help:
            "Run each device on GatewayLink, the device library `herald device` uses, instead of herald-bench's lean link on NIO handlers. GatewayLink passes each message through a task, which on a small machine takes CPU from the gateway being measured."
    )
    var gatewayLink = false

    @Flag(
        name: .customLong("device-journal"),
        help:
            "With --gateway-link: give the devices GatewayLink's duplicate journal (one SQLite file for all of them). Off by default: it is the device's own disk work, which a real device does on its own cores, not the gateway's."
    )
    var journal = false

    /// What the devices run, for the report.
    var summary: String {
        guard gatewayLink else { return "on herald-bench's lean link" }
        return journal ? "on GatewayLink with one shared duplicate journal" : "on GatewayLink without a duplicate journal"
    }

    /// The way to make the devices, sharing one TLS setup (and journal) among them; `scratch` holds the journal.
    /// With `channelID`, each device also subscribes to that broadcast channel (herald-bench's lean link only).
    func factory(caPath: String?, topic: String, scratch: URL, channelID: String? = nil) throws -> DeviceFactory {
        var tls = TLSConfiguration.makeClientConfiguration()
        if skipHostnameCheck { tls.certificateVerification = .noHostnameVerification }
        if let caPath { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caPath)) }
        if gatewayLink {
            let journal = journal ? try DeliveryJournal(path: scratch.appendingPathComponent("journal.sqlite").path) : nil
            return DeviceFactory(gateways: deviceGateways) { gateway in
                try GatewayLinkDevice(gateway: gateway, caPath: caPath, topic: topic, journal: journal, tls: tls)
            }
        }
        let context = try NIOSSLContext(configuration: tls)
        return DeviceFactory(gateways: deviceGateways) { gateway in
            try ChannelDevice(gateway: gateway, tls: context, trustedCA: caPath, topic: topic, channelID: channelID)
        }
    }

    func validate() throws {
        if deviceGateways.isEmpty { throw ValidationError("name the device link with --device-gateway https://HOST:PORT") }
        if journal, !gatewayLink { throw ValidationError("--device-journal is GatewayLink's journal: add --gateway-link") }
    }
}

/// Makes the benchmark's devices, spread over the device-link addresses round-robin.
struct DeviceFactory {
    let gateways: [String]
    let make: (_ gateway: String) throws -> any BenchDevice

    func device(_ index: Int) throws -> any BenchDevice {
        try make(gateways[index % gateways.count])
    }
}
