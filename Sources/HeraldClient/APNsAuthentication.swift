public import Crypto
import Foundation
import NIOSSL

/// How the client proves who it is: a provider token signed with a `.p8` key, or a client certificate.
///
/// ```swift
/// let token = try APNsAuthentication.token(p8File: "AuthKey_KEY1234567.p8", keyID: "KEY1234567", teamID: "TEAM123456")
/// let certificate = try APNsAuthentication.certificate(pkcs12File: "push.p12", passphrase: "secret")
/// ```
public struct APNsAuthentication: Sendable {
    enum Kind: Sendable {
        case token(key: P256.Signing.PrivateKey, keyID: String, teamID: String)
        case certificate(chain: [NIOSSLCertificate], key: NIOSSLPrivateKey)
    }

    let kind: Kind

    /// Token authentication with a key already in memory.
    public static func token(privateKey: P256.Signing.PrivateKey, keyID: String, teamID: String) -> APNsAuthentication {
        APNsAuthentication(kind: .token(key: privateKey, keyID: keyID, teamID: teamID))
    }

    /// Token authentication with the `.p8` file Apple's developer site (or `herald keys create`) gives.
    ///
    /// - Throws: ``APNsClientError`` `invalidCredentials` when the file is missing or not a P-256 key in PEM.
    public static func token(p8File path: String, keyID: String, teamID: String) throws(APNsClientError) -> APNsAuthentication {
        .token(privateKey: try loadP8(path), keyID: keyID, teamID: teamID)
    }

    /// Certificate authentication with a PEM certificate (chain) and its PEM private key.
    ///
    /// - Throws: ``APNsClientError`` `invalidCredentials` when a file is missing or not PEM.
    public static func certificate(pemFile certificatePath: String, keyFile keyPath: String) throws(APNsClientError) -> APNsAuthentication {
        try requireFile(certificatePath, what: "certificate")
        try requireFile(keyPath, what: "certificate's private key")
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw APNsClientError(
                .invalidCredentials, "\(certificatePath) is not a certificate in PEM form (for a .p12 use certificate(pkcs12File:))")
        }
        guard !chain.isEmpty else { throw APNsClientError(.invalidCredentials, "\(certificatePath) holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw APNsClientError(.invalidCredentials, "\(keyPath) is not an unencrypted private key in PEM form")
        }
        return APNsAuthentication(kind: .certificate(chain: chain, key: key))
    }

    /// Certificate authentication with a PKCS#12 bundle (`.p12`, as Keychain Access exports it).
    ///
    /// - Throws: ``APNsClientError`` `invalidCredentials` when the file is missing, not PKCS#12, or the
    ///   passphrase is wrong.
    public static func certificate(pkcs12File path: String, passphrase: String?) throws(APNsClientError) -> APNsAuthentication {
        try requireFile(path, what: "PKCS#12 bundle")
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(file: path, passphrase: passphrase.map { Array($0.utf8) })
        } catch {
            throw APNsClientError(.invalidCredentials, "\(path) is not a PKCS#12 bundle this passphrase opens")
        }
        return APNsAuthentication(kind: .certificate(chain: bundle.certificateChain, key: bundle.privateKey))
    }

    /// Reads a `.p8` key.
    ///
    /// - Throws: ``APNsClientError`` `invalidCredentials` with a message a person can act on.
    public static func loadP8(_ path: String) throws(APNsClientError) -> P256.Signing.PrivateKey {
        try requireFile(path, what: "key file")
        guard let data = FileManager.default.contents(atPath: path), let pem = String(data: data, encoding: .utf8),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: pem)
        else {
            throw APNsClientError(.invalidCredentials, "\(path) is not a P-256 private key in PEM (.p8) form")
        }
        return key
    }

    private static func requireFile(_ path: String, what: String) throws(APNsClientError) {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw APNsClientError(.invalidCredentials, "cannot read the \(what) \(path): no such file or not readable")
        }
    }

    var tokenSigner: (key: P256.Signing.PrivateKey, keyID: String, teamID: String)? {
        if case .token(let key, let keyID, let teamID) = kind { return (key, keyID, teamID) }
        return nil
    }
}
