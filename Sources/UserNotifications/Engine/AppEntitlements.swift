package import Foundation

/// The notification entitlements an app's bundle declares, read from the Xcode entitlements file copied into the
/// bundle's top directory (`Name.app/Name.entitlements`, a property list). On iOS they come from the code signature;
/// the keys are Apple's:
///
/// - `com.apple.developer.usernotifications.time-sensitive` (true): time-sensitive notifications keep their level
///   (without it they are delivered as active ones) and the app's Time Sensitive setting is on once it is allowed.
/// - `com.apple.developer.usernotifications.critical-alerts` (true): asking for `.criticalAlert` can be granted.
/// - `com.apple.developer.usernotifications.communication` (true): communication notifications, and the app's
///   Direct Messages setting (they skip the scheduled summary).
package struct AppEntitlements: OptionSet, Sendable, Hashable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let timeSensitive = AppEntitlements(rawValue: 1 << 0)
    package static let criticalAlerts = AppEntitlements(rawValue: 1 << 1)
    package static let communication = AppEntitlements(rawValue: 1 << 2)

    package static let keys: [(String, AppEntitlements)] = [
        ("com.apple.developer.usernotifications.time-sensitive", .timeSensitive),
        ("com.apple.developer.usernotifications.critical-alerts", .criticalAlerts),
        ("com.apple.developer.usernotifications.communication", .communication),
    ]

    /// The entitlements `bundleDirectory` declares; none when it has no `.entitlements` file or the file is not a
    /// dictionary (as an unsigned iOS app has none).
    package init(bundleDirectory: URL?) {
        self = []
        guard let bundleDirectory, let file = Self.file(in: bundleDirectory),
            let data = FileManager.default.contents(atPath: file.path),
            let values = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else { return }
        for (key, entitlement) in Self.keys where values[key] as? Bool == true {
            insert(entitlement)
        }
    }

    /// The bundle's entitlements file: the first `*.entitlements` in its top directory, by name.
    private static func file(in bundleDirectory: URL) -> URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundleDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".entitlements") }.sorted().first.map { bundleDirectory.appendingPathComponent($0) }
    }
}
