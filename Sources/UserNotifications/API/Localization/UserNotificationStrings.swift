package import Foundation
import Synchronization

/// Where `localizedUserNotificationString(forKey:arguments:)` finds its strings: `Localizable.strings` of a
/// bundle — the main bundle until the engine points it at the app's.
package enum UserNotificationStrings {
    private static let bundle = Mutex<Bundle>(Bundle.main)

    /// The bundle keys are looked up in.
    package static var lookupBundle: Bundle {
        get { bundle.withLock { $0 } }
        set { bundle.withLock { $0 = newValue } }
    }

    /// The string for `key` in `bundle` (default `lookupBundle`), formatted with `arguments`; the key itself
    /// when the bundle has no such string. Formatting never crashes (`NotificationStringFormat`).
    package static func localizedString(forKey key: String, arguments: [Any]?, in bundle: Bundle? = nil) -> String {
        let format = (bundle ?? lookupBundle).localizedString(forKey: key, value: key, table: nil)
        guard let arguments, !arguments.isEmpty else { return format }
        return NotificationStringFormat.format(format, arguments: arguments)
    }
}
