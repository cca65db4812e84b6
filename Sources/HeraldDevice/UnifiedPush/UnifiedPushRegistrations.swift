package import Foundation
import Synchronization

/// The distributor's registrations, kept in `DATA_DIR/device/unifiedpush.json` so they outlive the daemon: on each link to the
/// gateway, the live ones are registered again (the gateway answers with the same endpoint) and those removed while
/// the link was down are unregistered.
package final class UnifiedPushRegistrations: Sendable {
    private let path: URL
    private let registrations: Mutex<[String: UnifiedPushRegistration]>

    /// Reads the file (none yet: no registrations; one that cannot be read is set aside as `unifiedpush.json.unreadable`,
    /// so a damaged file does not stop the daemon).
    package init(dataDirectory: URL) {
        path = dataDirectory.appendingPathComponent("device/unifiedpush.json")
        var loaded: [String: UnifiedPushRegistration] = [:]
        if let data = try? Data(contentsOf: path) {
            if let list = try? JSONDecoder().decode([UnifiedPushRegistration].self, from: data) {
                loaded = Dictionary(list.map { ($0.token, $0) }) { _, last in last }
            } else {
                try? FileManager.default.moveItem(at: path, to: path.appendingPathExtension("unreadable"))
            }
        }
        registrations = Mutex(loaded)
    }

    /// Every registration, removed ones too.
    package var all: [UnifiedPushRegistration] {
        registrations.withLock { Array($0.values) }.sorted { $0.token < $1.token }
    }

    package func registration(token: String) -> UnifiedPushRegistration? {
        registrations.withLock { $0[token] }
    }

    /// The registration whose subscription has this gateway token.
    package func registration(deviceToken: String) -> UnifiedPushRegistration? {
        registrations.withLock { $0.values.first { $0.deviceToken == deviceToken } }
    }

    /// The registration of `service` whose subscription is named `subscription`.
    package func registration(service: String, subscription: String) -> UnifiedPushRegistration? {
        registrations.withLock { $0.values.first { $0.service == service && $0.subscription == subscription } }
    }

    /// Adds or replaces a registration, and writes the file.
    package func save(_ registration: UnifiedPushRegistration) throws {
        try change { $0[registration.token] = registration }
    }

    /// Forgets a registration, and writes the file.
    package func remove(token: String) throws {
        try change { $0[token] = nil }
    }

    /// Changes the registrations and writes them, under the lock, so writes land in the order of the changes.
    private func change(_ body: (inout [String: UnifiedPushRegistration]) -> Void) throws {
        try registrations.withLock { registrations in
            var changed = registrations
            body(&changed)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(changed.values.sorted { $0.token < $1.token })
            try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: path, options: [.atomic])
            // Endpoints are the apps' to hand out: the file is the user's alone, as the rest of the daemon's state.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.path)
            registrations = changed
        }
    }
}
