public import Foundation
public import HeraldWire

/// A provider authentication key (`.p8`) as the gateway knows it: only its public half.
public struct ProviderKey: Sendable, Hashable {
    public var teamID: String
    public var keyID: String
    /// Bundle ids the key may push to; empty means every topic of the team.
    public var topics: [String]
    public var environment: APNsEnvironment
    /// The P-256 public key in PEM.
    public var publicKeyPEM: String
    public var createdAt: Date
    /// When the key was revoked; tokens signed with a revoked key are refused.
    public var revokedAt: Date?

    public init(
        teamID: String,
        keyID: String,
        topics: [String],
        environment: APNsEnvironment,
        publicKeyPEM: String,
        createdAt: Date,
        revokedAt: Date? = nil
    ) {
        self.teamID = teamID
        self.keyID = keyID
        self.topics = topics
        self.environment = environment
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// Whether the key may push to `bundleID`.
    public func covers(bundleID: String) -> Bool {
        topics.isEmpty || topics.contains(bundleID)
    }
}
