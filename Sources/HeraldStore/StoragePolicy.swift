/// How the gateway keeps notifications for an app while the device is offline.
public struct StoragePolicy: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// APNs' own policy: only the latest notification per app per device.
        case latest
        /// Every notification, oldest first, up to ``StoragePolicy/cap``; past it the oldest is discarded.
        case all
    }

    public var kind: Kind
    /// Notifications kept per app per device under `all` (1 under `latest`).
    public var cap: Int

    /// APNs' default: keep the latest.
    public static let latest = StoragePolicy(kind: .latest, cap: 1)
    /// The cap `all` has unless one is given.
    public static let defaultCap = 10_000

    /// Every notification up to `cap`.
    public static func all(cap: Int = defaultCap) -> StoragePolicy {
        StoragePolicy(kind: .all, cap: cap)
    }

    public init(kind: Kind, cap: Int) {
        self.kind = kind
        self.cap = kind == .latest ? 1 : max(1, cap)
    }

    public var description: String { kind == .latest ? "latest" : "all (cap \(cap))" }
}

/// An app (bundle id) as the gateway knows it: its storage policy and how many devices have it.
public struct AppRecord: Sendable, Hashable {
    public var bundleID: String
    public var storagePolicy: StoragePolicy
    /// Devices with a live (not retired) registration for the app.
    public var deviceCount: Int

    public init(bundleID: String, storagePolicy: StoragePolicy, deviceCount: Int = 0) {
        self.bundleID = bundleID
        self.storagePolicy = storagePolicy
        self.deviceCount = deviceCount
    }
}
