#if !canImport(Darwin)
public import Foundation

extension FileManager {
    /// The directory an app and its extensions share, as Foundation's method of this name gives it on iOS;
    /// swift-corelibs-foundation has none, so `import UserNotifications` brings this one.
    ///
    /// ```swift
    /// let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.e2e")
    /// let key = try Data(contentsOf: container!.appendingPathComponent("message.key"))
    /// ```
    /// The container is `DATA_DIR/app-groups/GROUP_ID/` (`HERALD_DATA_DIR`, else `$XDG_DATA_HOME/herald`),
    /// created on first use and readable only by the user. Any program of the user that names the group gets the
    /// same directory (Herald has no entitlements). Nil when the identifier is empty or not one path component.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        AppGroupContainer.url(for: groupIdentifier)
    }
}
#endif
