import Crypto
import Foundation
public import HeraldStore
import HeraldTLS
public import HeraldWire
import NIOCore
import SwiftASN1
import X509

/// The local CA a gateway creates on first start under `DATA_DIR/tls/`, so clients can trust
/// `ca.pem` and connect over TLS with no outside certificate.
///
/// It also issues APNs-style client certificates for certificate-based provider authentication:
/// the subject's UID names the topic, and Apple's environment extension marks development or production.
public struct LocalCertificateAuthority: Sendable {
    public let caCertificatePath: String
    public let serverCertificatePath: String
    public let serverKeyPath: String
    let caKeyPath: String

    public init(dataDirectory: DataDirectory) {
        let tls = dataDirectory.tlsDirectory.path
        caCertificatePath = tls + "/ca.pem"
        caKeyPath = tls + "/ca-key.pem"
        serverCertificatePath = tls + "/server.pem"
        serverKeyPath = tls + "/server-key.pem"
    }

    /// Creates the CA unless it exists, and a server certificate naming `hostNames` unless the one there already
    /// names them all. A new one also keeps the names of the one before, so an address added once stays.
    ///
    /// Clients trust the CA, not the server certificate, so a new server certificate needs nothing from them.
    ///
    /// - Returns: The names of a server certificate issued now; nil when the existing one was kept.
    @discardableResult
    public func ensure(hostNames: [String]) throws -> [String]? {
        let manager = FileManager.default
        if !manager.fileExists(atPath: caCertificatePath) || !manager.fileExists(atPath: caKeyPath) {
            try createAuthority()
        }
        let wanted = Self.uniqued(hostNames.filter { !$0.isEmpty })
        var names = wanted
        if manager.fileExists(atPath: serverKeyPath), let existing = try? existingServerNames() {
            if wanted.allSatisfy({ existing.contains(Self.canonical($0)) }) { return nil }
            names += existing
        }
        names = Self.uniqued(names)
        try issueServerCertificate(hostNames: names)
        return names
    }

    /// This machine's host name (gethostname(2)); nil when it cannot be read.
    static var machineHostName: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What the gateway's certificate must name for clients to reach it as people write its address: `localhost`,
    /// 127.0.0.1, ::1, the machine's host name, and `host` (it listens there) or, when `host` is 0.0.0.0 or ::,
    /// every address of the machine's network interfaces.
    public static func serverNames(listeningOn host: String) -> [String] {
        var names = [host, "localhost", "127.0.0.1", "::1"]
        if let machine = machineHostName { names.append(machine) }
        if ListenAddress.isWildcard(host) {
            let devices = (try? System.enumerateDevices()) ?? []
            for address in devices.compactMap(\.address) {
                guard let ip = address.ipAddress, !ip.lowercased().hasPrefix("fe80:") else { continue }  // link-local needs a scope
                names.append(ip)
            }
        }
        return uniqued(names.filter { !ListenAddress.isWildcard($0) })
    }

    /// The DNS names and IP addresses (canonical text) of the server certificate, if it was issued by this CA.
    private func existingServerNames() throws -> Set<String>? {
        let certificate = try Certificate(pemEncoded: String(contentsOfFile: serverCertificatePath, encoding: .utf8))
        let (authority, _) = try loadAuthority()
        guard certificate.issuer == authority.subject, certificate.notValidAfter > Date().addingTimeInterval(30 * 86400) else { return nil }
        var names: Set<String> = []
        for name in try certificate.extensions.subjectAlternativeNames.map(Array.init) ?? [] {
            switch name {
            case .dnsName(let dns): names.insert(dns.lowercased())
            case .ipAddress(let bytes): if let text = TLSHost.addressText(Array(bytes.bytes)) { names.insert(text) }
            default: break
            }
        }
        return names
    }

    func createAuthority() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("Herald")
            CommonName("Herald local CA \(Int(Date().timeIntervalSince1970))")
        }
        let certificate = try Self.certificate(
            for: key,
            subject: name,
            issuer: name,
            signedBy: key,
            validForYears: 10,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
            }
        )
        try DataDirectory.writeSecret(PEMFile.contents(key.pemRepresentation), to: caKeyPath)
        try DataDirectory.writePublic(PEMFile.contents(try certificate.serializeAsPEM().pemString), to: caCertificatePath)
    }

    private func loadAuthority() throws -> (Certificate, P256.Signing.PrivateKey) {
        let certificate = try Certificate(pemEncoded: String(contentsOfFile: caCertificatePath, encoding: .utf8))
        let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: caKeyPath, encoding: .utf8))
        return (certificate, key)
    }

    private func issueServerCertificate(hostNames: [String]) throws {
        let (certificate, key) = try issueServerCertificate(naming: hostNames + ["localhost", "127.0.0.1", "::1"])
        try DataDirectory.writeSecret(PEMFile.contents(key), to: serverKeyPath)
        try DataDirectory.writePublic(PEMFile.contents(certificate), to: serverCertificatePath)
    }

    /// Issues a TLS server certificate for `hostNames` (DNS names, IPv4 and IPv6 addresses; brackets allowed).
    ///
    /// - Returns: The certificate and its private key, both PEM.
    public func issueServerCertificate(naming hostNames: [String]) throws -> (certificatePEM: String, keyPEM: String) {
        var names: [GeneralName] = []
        for host in Self.uniqued(hostNames) where !host.isEmpty {
            if let address = TLSHost.addressBytes(host) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(address))))
            } else {
                names.append(.dnsName(host))
            }
        }
        let (certificate, key) = try issue(
            subject: try DistinguishedName { CommonName(Self.canonical(hostNames.first ?? "localhost")) },
            extensions: try Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            }
        )
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }

    /// Issues a client certificate for certificate-based provider authentication.
    ///
    /// - Returns: The certificate and its private key, both PEM.
    public func issueClientCertificate(topics: [String], environment: APNsEnvironment) throws -> (certificatePEM: String, keyPEM: String) {
        let uid = ClientIdentity.userIDOID
        var attributes: [RelativeDistinguishedName] = topics.map {
            RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: uid, utf8String: $0))
        }
        attributes.append(
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(type: .RDNAttributeType.commonName, utf8String: "Apple Push Services: \(topics.first ?? "")")
            ))
        let environmentOID = environment == .production ? ClientIdentity.productionOID : ClientIdentity.developmentOID
        let (certificate, key) = try issue(
            subject: DistinguishedName(attributes),
            extensions: try Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
                Certificate.Extension(oid: environmentOID, critical: false, value: [0x05, 0x00])
            }
        )
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }

    private func issue(subject: DistinguishedName, extensions: Certificate.Extensions) throws -> (Certificate, P256.Signing.PrivateKey) {
        let (authority, authorityKey) = try loadAuthority()
        let key = P256.Signing.PrivateKey()
        let certificate = try Self.certificate(
            for: key, subject: subject, issuer: authority.subject, signedBy: authorityKey, validForYears: 2, extensions: extensions
        )
        return (certificate, key)
    }

    private static func certificate(
        for key: P256.Signing.PrivateKey,
        subject: DistinguishedName,
        issuer: DistinguishedName,
        signedBy issuerKey: P256.Signing.PrivateKey,
        validForYears years: Double,
        extensions: Certificate.Extensions
    ) throws -> Certificate {
        try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600),  // tolerate clocks a little behind
            notValidAfter: Date().addingTimeInterval(years * 365 * 86400),
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: .init(issuerKey)
        )
    }

    /// An IP address as one text (`::0001` and `::1` are the same), a name in lower case.
    static func canonical(_ host: String) -> String {
        TLSHost.addressBytes(host).flatMap(TLSHost.addressText) ?? host.lowercased()
    }

    /// Whether `host` is an IPv4 or IPv6 address (brackets allowed) rather than a name.
    public static func isAddress(_ host: String) -> Bool {
        TLSHost.addressBytes(host) != nil
    }

    /// Canonical, in first-seen order, each once.
    static func uniqued(_ hosts: [String]) -> [String] {
        var seen: Set<String> = []
        return hosts.map(canonical).filter { seen.insert($0).inserted }
    }
}
