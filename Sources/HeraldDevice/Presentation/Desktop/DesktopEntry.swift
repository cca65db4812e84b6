import Foundation

/// Finds an app's desktop entry (freedesktop Desktop Entry spec): `BUNDLE_ID.desktop` in the `applications`
/// directory of `$XDG_DATA_HOME` (default `~/.local/share`) or of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`). Notification servers use it (the `desktop-entry` hint) to group an app's
/// notifications and find its icon; docks use it for the badge.
enum DesktopEntry {
    /// The entry id (the file name without `.desktop`), or nil when the app has none.
    static func find(_ bundleID: String, environment: [String: String]) -> String? {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init)
        let found = ([dataHome] + dataDirs).contains { directory in
            FileManager.default.fileExists(atPath: "\(directory)/applications/\(bundleID).desktop")
        }
        return found ? bundleID : nil
    }
}
