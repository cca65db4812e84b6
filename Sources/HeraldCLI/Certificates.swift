import ArgumentParser
import Foundation
import HeraldGateway
import HeraldStore
import HeraldWire

/// `herald certs create`: a client certificate for certificate-based provider authentication.
struct Certificates: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Issue client certificates for certificate-based provider authentication.",
        subcommands: [Create.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue a certificate from the gateway's local CA naming the given topics.")

        @OptionGroup var dataDirectory: DataDirectoryOption

        @Option(name: .customLong("topic"), help: "A bundle id the certificate may push to (repeat for several).")
        var topics: [String]

        @Option(help: "development or production.")
        var environment = APNsEnvironment.development

        @Option(help: "Where to write the certificate (PEM).")
        var out: String

        @Option(name: .customLong("key-out"), help: "Where to write its private key (PEM, 0600).")
        var keyOut: String

        func validate() throws {
            if topics.isEmpty { throw ValidationError("name at least one --topic") }
            try validateTopics(topics)
        }

        func run() async throws {
            let directory = try dataDirectory.prepare()
            let authority = LocalCertificateAuthority(dataDirectory: directory)
            try authority.ensure(hostNames: [])
            let (certificate, key) = try authority.issueClientCertificate(topics: topics, environment: environment)
            try DataDirectory.writeSecret(PEMFile.contents(key), to: keyOut)
            try DataDirectory.writePublic(PEMFile.contents(certificate), to: out)
            print("issued a \(environment) certificate for \(topics.joined(separator: ", ")): \(out) (key \(keyOut))")
        }
    }
}
