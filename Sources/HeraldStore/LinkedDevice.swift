public import Foundation

/// A physical device that proved its identity on the device link: its id is derived from its public key.
public struct LinkedDevice: Sendable, Hashable {
    /// Hex of the first 16 bytes of SHA-256 over the device's public key (see `DeviceIdentity`).
    public var id: String
    /// The device's P-256 public key, x9.63 encoded.
    public var publicKey: Data
    public var firstSeenAt: Date
    public var lastSeenAt: Date

    public init(id: String, publicKey: Data, firstSeenAt: Date, lastSeenAt: Date) {
        self.id = id
        self.publicKey = publicKey
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
    }
}
