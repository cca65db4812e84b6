public import Crypto
public import Foundation

/// A device's credential on the device link: a P-256 key pair. The device signs the gateway's challenge;
/// its id is derived from the public key, so it cannot be claimed without the private key.
///
/// A device token is only an address; this key is what lets a device receive notifications.
public enum DeviceIdentity {
    /// Hex of the first 16 bytes of SHA-256 over the x9.63 public key.
    public static func deviceID(of publicKey: P256.Signing.PublicKey) -> String {
        Array(SHA256.hash(data: publicKey.x963Representation).prefix(16)).hexString
    }

    /// The bytes a device signs: a context string and the gateway's nonce, so a signature made for
    /// this purpose is good for nothing else.
    public static func challengeMessage(nonce: String) -> Data {
        Data("herald-device-link-v\(DeviceLinkMessage.protocolVersion):\(nonce)".utf8)
    }

    /// The `hello` answering `nonce`, signed with `key`.
    public static func hello(answering nonce: String, with key: P256.Signing.PrivateKey) throws -> DeviceLinkMessage.Hello {
        let signature = try key.signature(for: challengeMessage(nonce: nonce))
        return DeviceLinkMessage.Hello(
            publicKey: Base64URL.encode(key.publicKey.x963Representation),
            signature: Base64URL.encode(signature.rawRepresentation)
        )
    }

    /// The device id when `hello` carries a valid public key and a valid signature over `nonce`; nil otherwise.
    public static func verify(_ hello: DeviceLinkMessage.Hello, nonce: String) -> (deviceID: String, publicKey: Data)? {
        guard let keyBytes = Base64URL.decode(hello.publicKey),
            let signatureBytes = Base64URL.decode(hello.signature),
            let key = try? P256.Signing.PublicKey(x963Representation: keyBytes),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
            key.isValidSignature(signature, for: challengeMessage(nonce: nonce))
        else { return nil }
        return (deviceID(of: key), keyBytes)
    }
}
