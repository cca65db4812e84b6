import ArgumentParser
import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire

/// `herald certs create`: a client certificate for certificate-based provider authentication, or a server
/// certificate for `herald serve --tls-cert`, issued by the data directory's local CA.
struct Certificates: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Issue certificates from the gateway's local CA: client certificates for providers, server certificates for the gateway.",
        subcommands: [Create.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a client certificate naming --topic bundle ids, or a server certificate naming --host names and addresses.",
            discussion: """
                A server certificate is for a gateway that clients reach by a name or address its own certificate lacks:
                  herald certs create --host 192.168.1.20 --host gateway.lan --out server.pem --key-out server-key.pem
                  herald serve --host 0.0.0.0 --tls-cert server.pem --tls-key server-key.pem
                Clients trust it through DATA_DIR/tls/ca.pem, as they trust the gateway's own.
                """
        )

        @OptionGroup var dataDirectory: DataDirectoryOption

        @Option(name: .customLong("topic"), help: "A bundle id the client certificate may push to (repeat for several).")
        var topics: [String] = []

        @Option(name: .customLong("host"), help: "A host name, IPv4 or IPv6 address the server certificate is for (repeat for several).")
        var hosts: [String] = []

        @Option(help: "development or production (client certificates).")
        var environment = APNsEnvironment.development

        @Option(help: "Where to write the certificate (PEM).")
        var out: String

        @Option(name: .customLong("key-out"), help: "Where to write its private key (PEM, 0600).")
        var keyOut: String

        func validate() throws {
            switch (topics.isEmpty, hosts.isEmpty) {
            case (true, true): throw ValidationError("name at least one --topic (a client certificate) or --host (a server certificate)")
            case (false, false): throw ValidationError("--topic makes a client certificate and --host a server certificate: give one kind")
            case (false, true): try validateTopics(topics)
            case (true, false):
                for host in hosts where !Self.isHost(host) {
                    throw ValidationError("--host \(host) is neither an IP address nor a host name such as gateway.example.com")
                }
            }
        }

        func run() async throws {
            let directory = try dataDirectory.prepare()
            let authority = LocalCertificateAuthority(dataDirectory: directory)
            try authority.ensure(hostNames: [])
            let (certificate, key) =
                topics.isEmpty
                ? try authority.issueServerCertificate(naming: hosts)
                : try authority.issueClientCertificate(topics: topics, environment: environment)
            try DataDirectory.writeSecret(PEMFile.contents(key), to: keyOut)
            try DataDirectory.writePublic(PEMFile.contents(certificate), to: out)
            if topics.isEmpty {
                print(
                    "issued a server certificate for \(hosts.joined(separator: ", ")): \(out) (key \(keyOut)); serve it with --tls-cert \(out) --tls-key \(keyOut)"
                )
            } else {
                print("issued a \(environment) certificate for \(topics.joined(separator: ", ")): \(out) (key \(keyOut))")
            }
        }

        /// An IPv4 or IPv6 address, or DNS labels of letters, digits and hyphens (a leading `*.` for a wildcard).
        static func isHost(_ host: String) -> Bool {
            if LocalCertificateAuthority.isAddress(host) { return true }
            let labels = (host.hasPrefix("*.") ? String(host.dropFirst(2)) : host).split(separator: ".", omittingEmptySubsequences: false)
            return host.utf8.count <= 253
                && labels.allSatisfy { label in
                    (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                }
        }
    }
}
