import Crypto
import HeraldStore
import HeraldWire
import NIOCore

/// A provider key ready for verification: the record and its parsed public key.
struct ResolvedKey: Sendable {
    var record: ProviderKey
    var publicKey: P256.Signing.PublicKey
}

/// Reads keys and devices from the store through a short-lived cache, so the hot path does not touch
/// the store while changes made by other processes (the CLI) still arrive within the cache's lifetime.
final class Directory: Sendable {
    private struct KeyName: Hashable, Sendable {
        var teamID: String
        var keyID: String
    }

    private let store: any Store
    private let keys: ExpiringCache<KeyName, ResolvedKey?>
    private let devices: ExpiringCache<DeviceToken, DeviceRecord?>

    init(store: any Store, timeToLive: TimeAmount) {
        self.store = store
        keys = ExpiringCache(timeToLive: timeToLive, limit: 10_000)
        devices = ExpiringCache(timeToLive: timeToLive, limit: 1_000_000)
    }

    func key(teamID: String, keyID: String, on eventLoop: any EventLoop) -> EventLoopFuture<ResolvedKey?> {
        let name = KeyName(teamID: teamID, keyID: keyID)
        if let cached = keys.value(for: name) {
            return eventLoop.makeSucceededFuture(cached)
        }
        let store = self.store
        return eventLoop.makeFutureWithTask {
            let resolved = try await store.key(teamID: teamID, keyID: keyID).flatMap { record in
                (try? P256.Signing.PublicKey(pemRepresentation: record.publicKeyPEM)).map {
                    ResolvedKey(record: record, publicKey: $0)
                }
            }
            self.keys.set(resolved, for: name)
            return resolved
        }
    }

    func device(_ token: DeviceToken, on eventLoop: any EventLoop) -> EventLoopFuture<DeviceRecord?> {
        if let cached = devices.value(for: token) {
            return eventLoop.makeSucceededFuture(cached)
        }
        let store = self.store
        return eventLoop.makeFutureWithTask {
            let record = try await store.device(token)
            self.devices.set(record, for: token)
            return record
        }
    }
}
