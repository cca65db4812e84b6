import Crypto
public import HeraldStore
import HeraldWire
import NIOCore

/// A provider key ready for verification: the record and its parsed public key.
struct ResolvedKey: Sendable {
    var record: ProviderKey
    var publicKey: P256.Signing.PublicKey
}

/// Reads keys and devices from the store through a short-lived cache, so the hot path does not touch
/// the store while changes made by other processes (the CLI) still arrive within two of the cache's
/// lifetimes (an expired entry is served while its one refresh runs). A live device is trusted longer: its record
/// changes only when the token is retired, and ``RetirementFeed`` replaces it then.
public final class Directory: Sendable {
    private struct KeyName: Hashable, Sendable {
        var teamID: String
        var keyID: String
    }

    private let store: any Store
    private let keys: ExpiringCache<KeyName, ResolvedKey?>
    private let devices: ExpiringCache<DeviceToken, DeviceRecord?>
    private let policies: ExpiringCache<String, StoragePolicy>

    /// Keys, policies, unknown tokens and retired devices are trusted for the configuration's `directoryTimeToLive`,
    /// a live device for its `liveDeviceTimeToLive` (its retirement replaces it at once).
    init(store: any Store, configuration: GatewayConfiguration) {
        self.store = store
        let timeToLive = configuration.directoryTimeToLive
        let liveDeviceTimeToLive = configuration.liveDeviceTimeToLive
        keys = ExpiringCache(timeToLive: timeToLive, limit: 10_000)
        devices = ExpiringCache(
            timeToLive: { record in
                guard let record, record.retiredAt == nil else { return timeToLive }
                return liveDeviceTimeToLive
            },
            limit: 1_000_000)
        policies = ExpiringCache(timeToLive: timeToLive, limit: 100_000)
    }

    /// The key when the cache holds an answer (`.some(nil)`: known not to exist); nil when it must be loaded.
    func cachedKey(teamID: String, keyID: String) -> ResolvedKey?? {
        keys.value(for: KeyName(teamID: teamID, keyID: keyID))
    }

    /// Reads the key from the store (once for all who ask meanwhile) and remembers the answer.
    func loadKey(teamID: String, keyID: String, on eventLoop: any EventLoop) -> EventLoopFuture<ResolvedKey?> {
        let store = self.store
        return keys.load(KeyName(teamID: teamID, keyID: keyID), on: eventLoop) {
            try await store.key(teamID: teamID, keyID: keyID).flatMap { record in
                (try? P256.Signing.PublicKey(pemRepresentation: record.publicKeyPEM)).map {
                    ResolvedKey(record: record, publicKey: $0)
                }
            }
        }
    }

    /// Replaces what the cache holds for a key this process just changed (created, imported, revoked), so the
    /// provider API acts on the change at once.
    public func remember(_ key: ProviderKey) {
        let resolved = (try? P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM)).map { ResolvedKey(record: key, publicKey: $0) }
        keys.set(resolved, for: KeyName(teamID: key.teamID, keyID: key.keyID))
    }

    /// The device when the cache holds an answer (`.some(nil)`: unknown token); nil when it must be loaded.
    func cachedDevice(_ token: DeviceToken) -> DeviceRecord?? {
        devices.value(for: token)
    }

    /// Reads the device from the store (once for all who ask meanwhile) and remembers the answer.
    func loadDevice(_ token: DeviceToken, on eventLoop: any EventLoop) -> EventLoopFuture<DeviceRecord?> {
        let store = self.store
        return devices.load(token, on: eventLoop) { try await store.device(token) }
    }

    /// Replaces what the cache holds for a device this process just changed (registered, retired).
    public func remember(_ device: DeviceRecord) {
        devices.set(device, for: device.token)
    }

    /// The app's storage policy when cached; nil when it must be loaded.
    func cachedPolicy(bundleID: String) -> StoragePolicy? {
        policies.value(for: bundleID)
    }

    /// Replaces what the cache holds for an app's storage policy this process just set.
    public func remember(_ policy: StoragePolicy, bundleID: String) {
        policies.set(policy, for: bundleID)
    }

    /// Reads the app's storage policy from the store (once for all who ask meanwhile) and remembers it.
    func loadPolicy(bundleID: String, on eventLoop: any EventLoop) -> EventLoopFuture<StoragePolicy> {
        let store = self.store
        return policies.load(bundleID, on: eventLoop) { try await store.storagePolicy(bundleID: bundleID) }
    }
}
