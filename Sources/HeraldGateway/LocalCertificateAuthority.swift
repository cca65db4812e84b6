import Foundation
import Crypto
public import HeraldStore
public import HeraldWire
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
    private let caKeyPath: String

    public init(dataDirectory: DataDirectory) {
        let tls = dataDirectory.tlsDirectory.path
        caCertificatePath = tls + "/ca.pem"
        caKeyPath = tls + "/ca-key.pem"
        serverCertificatePath = tls + "/server.pem"
        serverKeyPath = tls + "/server-key.pem"
    }

    /// Creates the CA and a server certificate for `hostNames` unless they already exist.
    public func ensure(hostNames: [String]) throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: caCertificatePath) || !manager.fileExists(atPath: caKeyPath) {
            try createAuthority()
        }
        if !manager.fileExists(atPath: serverCertificatePath) || !manager.fileExists(atPath: serverKeyPath) {
            try issueServerCertificate(hostNames: hostNames)
        }
    }

    private func createAuthority() throws {
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
        var names: [GeneralName] = []
        for host in Set(hostNames + ["localhost", "127.0.0.1", "::1"]).sorted() {
            if let address = Self.ipAddressBytes(host) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(address))))
            } else if !host.isEmpty {
                names.append(.dnsName(host))
            }
        }
        let (certificate, key) = try issue(
            subject: try DistinguishedName { CommonName(hostNames.first ?? "localhost") },
            extensions: try Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            }
        )
        try DataDirectory.writeSecret(PEMFile.contents(key.pemRepresentation), to: serverKeyPath)
        try DataDirectory.writePublic(PEMFile.contents(try certificate.serializeAsPEM().pemString), to: serverCertificatePath)
    }

    /// Issues a client certificate for certificate-based provider authentication.
    ///
    /// - Returns: The certificate and its private key, both PEM.
    public func issueClientCertificate(topics: [String], environment: APNsEnvironment) throws -> (certificatePEM: String, keyPEM: String) {
        let uid = ClientIdentity.userIDOID
        var attributes: [RelativeDistinguishedName] = topics.map {
            RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: uid, utf8String: $0))
        }
        attributes.append(RelativeDistinguishedName(
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

    static func ipAddressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
