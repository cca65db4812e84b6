public import Crypto

/// The P-256 key of a provider authentication key, read from PEM: the `.p8` file Apple hands out (PKCS#8
/// `PRIVATE KEY`), a SEC1 `EC PRIVATE KEY`, or only the public half (`PUBLIC KEY`), which is all a gateway keeps.
///
/// ```swift
/// guard let (publicKey, form) = ProviderKeyPEM.publicKey(in: text) else { … }
/// ```
public enum ProviderKeyPEM {
    /// What the PEM held.
    public enum Form: String, Sendable, Hashable {
        case privateKey, publicKey
    }

    /// The public key in `pem` (surrounding whitespace ignored) and the form it came in; nil when `pem` is neither a
    /// P-256 private key nor a P-256 public key.
    public static func publicKey(in pem: String) -> (key: P256.Signing.PublicKey, form: Form)? {
        let text = String(pem.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: text) { return (key.publicKey, .privateKey) }
        if let key = try? P256.Signing.PublicKey(pemRepresentation: text) { return (key, .publicKey) }
        return nil
    }
}
