import Crypto

enum P256KeyFactory {
    static func make() -> P256.Signing.PrivateKey { P256.Signing.PrivateKey() }
}
