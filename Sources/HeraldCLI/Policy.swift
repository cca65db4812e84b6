public import ArgumentParser
public import HeraldStore

/// `herald policy`: how the gateway keeps an app's notifications while a device is offline.
struct Policy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set an app's storage policy for offline devices.",
        discussion: """
            latest (the default, as APNs): keep only the newest notification per device.
            all: keep every notification, oldest first, up to --cap per device; past the cap the oldest is discarded.
            A running gateway picks the change up within a second.
            """
    )

    @OptionGroup var store: StoreOption

    @Option(help: "The app's bundle id.")
    var topic: String

    @Argument(help: "latest or all; omit to show the current policy.")
    var kind: StoragePolicy.Kind?

    @Option(help: "With all: notifications kept per device (default \(StoragePolicy.defaultCap)).")
    var cap: Int?

    func validate() throws {
        try validateTopics([topic])
        if let cap, cap < 1 { throw ValidationError("--cap must be at least 1") }
        if cap != nil, kind != .all { throw ValidationError("--cap goes with the all policy: herald policy --topic \(topic) all --cap N") }
    }

    func run() async throws {
        let policy = try await store.withStore(creating: kind != nil) { store, _ in
            guard let kind else { return try await store.storagePolicy(bundleID: topic) }
            let policy = StoragePolicy(kind: kind, cap: cap ?? StoragePolicy.defaultCap)
            try await store.setStoragePolicy(policy, bundleID: topic)
            return policy
        }
        print("\(topic): \(policy)")
    }
}

extension StoragePolicy.Kind: ExpressibleByArgument {}
