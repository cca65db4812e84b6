package import Foundation

/// The directories an app and its extensions share, by app group identifier (iOS's app group containers):
/// `DATA_DIR/app-groups/GROUP_ID/` (`HERALD_DATA_DIR`, else `$XDG_DATA_HOME/herald`), readable only by the user.
/// Herald has no entitlements: every program of the user that names a group gets its container.
package enum AppGroupContainer {
    /// `DATA_DIR/app-groups/`, where every group's container is.
    package static func root(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        AppIdentity.dataDirectory(environment: environment).appendingPathComponent("app-groups", isDirectory: true)
    }

    /// The container of `groupIdentifier`, created if missing; nil when the identifier is empty, `.`/`..` or
    /// holds a `/` (it names one directory), or the directory cannot be made.
    package static func url(
        for groupIdentifier: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL? {
        guard !groupIdentifier.isEmpty, groupIdentifier != ".", groupIdentifier != "..",
            !groupIdentifier.contains("/"), !groupIdentifier.contains("\0")
        else { return nil }
        let container = root(environment: environment).appendingPathComponent(groupIdentifier, isDirectory: true)
        do {
            try FileManager.default.createDirectory(
                at: container, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            return nil
        }
        return container
    }
}
