import Crypto
import Foundation
import HeraldClient
import HeraldDevice
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTLS
import HeraldTesting
import HeraldWire
import Logging
import NIOCore
import SwiftASN1
import Synchronization
import Testing
import UserNotifications
import X509

/// Gateways named by IPv4 and IPv6 address, as devices on other machines name them: no SNI for an address, the
/// certificate checked against its IP addresses, and a certificate that does not fit said in words.
@Suite struct GatewayAddressTests {
    /// Links to `url`, registers the default app and returns its token.
    private func register(at url: String, caPath: String) async throws -> String? {
        let link = try GatewayLink(gateway: url, caPath: caPath, key: P256.Signing.PrivateKey(), journal: nil)
        let token = TokenBox()
        try await link.session(requests: [.register(topic: TestGateway.topic)]) { event in
            if case .registered(_, let deviceToken) = event { token.set(deviceToken) }
            return token.get() == nil
        }
        return token.get()
    }

    @Test(arguments: [("127.0.0.1", "127.0.0.1"), ("::1", "[::1]")])
    func aDeviceLinksToAGatewayNamedByAddress(listening host: String, url: String) async throws {
        let gateway = try await TestGateway.start { $0.host = host }
        let token = try await register(at: "https://\(url):\(try await gateway.gateway.devicePort())", caPath: gateway.caPath)
        #expect(token.flatMap(DeviceToken.init(hex:)) != nil)
        // The provider API by address too.
        let connection = try await APNsConnection.connect(
            to: URL(string: "https://\(url):\(gateway.gateway.providerPort)")!, trusting: gateway.caPath
        )
        #expect(try await connection.send(Push(token: try #require(token), jwt: gateway.defaultJWT)).status == 200)
        await connection.close()
        try await gateway.stop()
    }

    /// A certificate made for another name than the address connected to is refused, naming what it is for.
    @Test func aCertificateForOtherNamesIsRefusedSayingWhatItNames() async throws {
        let directory = DataDirectory(path: TemporaryPath.make("herald-test-certificate"))
        try directory.prepare()
        let authority = LocalCertificateAuthority(dataDirectory: directory)
        try authority.ensure(hostNames: [])
        let (certificate, key) = try authority.issueServerCertificate(naming: ["gateway.example"])
        let certificatePath = directory.path + "/gateway.pem", keyPath = directory.path + "/gateway-key.pem"
        try PEMFile.contents(certificate).write(to: URL(fileURLWithPath: certificatePath))
        try PEMFile.contents(key).write(to: URL(fileURLWithPath: keyPath))
        let gateway = try await TestGateway.start {
            $0.tlsCertificatePath = certificatePath
            $0.tlsKeyPath = keyPath
        }
        let url = "https://127.0.0.1:\(try await gateway.gateway.devicePort())"
        let refused = await #expect(throws: (any Error).self) {
            try await register(at: url, caPath: authority.caCertificatePath)
        }
        let message = "\(refused.map { "\($0)" } ?? "")"
        #expect(message.contains("the gateway's certificate is for gateway.example, not 127.0.0.1"), "\(message)")
        #expect(message.contains("herald certs create --host 127.0.0.1"), "\(message)")
        try await gateway.stop()
    }

    /// A gateway whose CA the device does not trust: said in words, with the flag that fixes it.
    @Test func anUntrustedGatewayIsSaidInWords() async throws {
        let gateway = try await TestGateway.start()
        let other = try await TestGateway.start()
        let refused = await #expect(throws: (any Error).self) {
            try await register(at: "https://localhost:\(try await gateway.gateway.devicePort())", caPath: other.caPath)
        }
        let message = "\(refused.map { "\($0)" } ?? "")"
        #expect(message.contains("the gateway's certificate is not signed by the CA you trust (\(other.caPath))"), "\(message)")
        #expect(message.contains("pass --ca"), "\(message)")
        #expect(!message.contains("CERTIFICATE_VERIFY_FAILED"))
        try await other.stop()
        try await gateway.stop()
    }

    /// The client library gives up at once on a certificate it refuses: a retry cannot fix it.
    @Test func theClientDoesNotRetryARefusedCertificate() async throws {
        let gateway = try await TestGateway.start()
        var configuration = APNsClientConfiguration(
            endpoint: try .custom(URL(string: "https://127.0.0.1:\(gateway.gateway.providerPort)")!),
            authentication: .token(privateKey: gateway.privateKey, keyID: TestGateway.keyID, teamID: TestGateway.teamID)
        )
        configuration.retryPolicy.initialBackoff = .milliseconds(1)
        let client = try APNsClient(configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let token = try #require(DeviceToken(hex: try await gateway.issueToken()))
        let error = await #expect(throws: APNsClientError.self) {
            try await client.send(APNsNotification(topic: TestGateway.topic, payload: Data(#"{"aps":{"alert":"hi"}}"#.utf8)), to: token)
        }
        #expect(error?.code == .serverCertificate)
        #expect(error?.attempts == 1)
        #expect(error?.message.contains("not signed by the CA you trust (the system's CAs)") == true, "\(String(describing: error))")
        await client.shutdown()
        try await gateway.stop()
    }
}

/// The local CA's server certificate follows the names and addresses the gateway serves on.
@Suite struct LocalCertificateAuthorityTests {
    private func names(_ authority: LocalCertificateAuthority) throws -> [String] {
        let certificate = try Certificate(pemEncoded: String(contentsOfFile: authority.serverCertificatePath, encoding: .utf8))
        return try (certificate.extensions.subjectAlternativeNames.map(Array.init) ?? []).compactMap { name in
            switch name {
            case .dnsName(let dns): dns
            case .ipAddress(let bytes): TLSHost.addressText(Array(bytes.bytes))
            default: nil
            }
        }
    }

    @Test func aServerCertificateLackingANameIsIssuedAgainKeepingTheOldNames() throws {
        let directory = DataDirectory(path: TemporaryPath.make("herald-test-ca"))
        try directory.prepare()
        let authority = LocalCertificateAuthority(dataDirectory: directory)
        #expect(try authority.ensure(hostNames: ["127.0.0.1", "gateway.lan"]) != nil)
        #expect(Set(try names(authority)) == ["127.0.0.1", "gateway.lan", "localhost", "::1"])
        let ca = try String(contentsOfFile: authority.caCertificatePath, encoding: .utf8)

        #expect(try authority.ensure(hostNames: ["gateway.lan", "::0001"]) == nil)  // named already: kept
        #expect(try authority.ensure(hostNames: ["192.0.2.44", "[2001:db8::7]"]) != nil)
        #expect(Set(try names(authority)) == ["127.0.0.1", "gateway.lan", "localhost", "::1", "192.0.2.44", "2001:db8::7"])
        // The CA stays: clients that trust it trust the new certificate.
        #expect(try String(contentsOfFile: authority.caCertificatePath, encoding: .utf8) == ca)
        let keyMode = try FileManager.default.attributesOfItem(atPath: authority.serverKeyPath)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/tls").allSatisfy { !$0.contains(".tmp-") })
    }

    @Test func aGatewayOnEveryAddressNamesThemAll() throws {
        let all = LocalCertificateAuthority.serverNames(listeningOn: "0.0.0.0")
        #expect(all.contains("localhost") && all.contains("127.0.0.1") && all.contains("::1"))
        #expect(!all.contains("0.0.0.0"))
        let interfaces = try System.enumerateDevices().compactMap { $0.address?.ipAddress }.filter { !$0.lowercased().hasPrefix("fe80:") }
        for address in interfaces { #expect(all.contains(TLSHost.addressText(TLSHost.addressBytes(address)!)!), "\(address)") }
        #expect(LocalCertificateAuthority.serverNames(listeningOn: "192.0.2.44").first == "192.0.2.44")
    }
}

/// A value the link's handler sets and the test reads.
private final class TokenBox: Sendable {
    private let value = Mutex<String?>(nil)
    func set(_ token: String) { value.withLock { $0 = token } }
    func get() -> String? { value.withLock { $0 } }
}
