package import Foundation
import UserNotifications

/// An app as installed on this machine, read from its bundle the way iOS reads an app's `Info.plist`.
///
/// The bundle is a directory `Name.app` with an `Info.plist` (XML or binary) naming `CFBundleIdentifier` and
/// `CFBundleExecutable`; notification extensions are `Name.app/PlugIns/*.appex` bundles with their own
/// `Info.plist`; localized strings are in `Name.app/<language>.lproj/Localizable.strings`. See `docs/apps.md`.
///
/// ```swift
/// let app = try AppManifest.load(from: URL(fileURLWithPath: "Podcast.app"),
///                                executableDirectory: URL(fileURLWithPath: ".build/debug"))
/// try InstalledApps(dataDirectory: AppIdentity.dataDirectory()).install(app)
/// ```
package struct AppManifest: Codable, Hashable, Sendable {
    /// `CFBundleIdentifier`, like `com.example.podcast`: the app's topic.
    package var bundleIdentifier: String
    /// `CFBundleDisplayName`, else `CFBundleName`.
    package var displayName: String?
    /// `CFBundleIconFile`, relative to the bundle (`.png` added when it has no extension).
    package var iconFile: String?
    /// The `.app` directory, absolute with symlinks resolved.
    package var bundleDirectory: URL
    /// `CFBundleExecutable`, found in the bundle or the executable directory; absolute, symlinks resolved.
    package var executable: URL
    /// The notification extensions in `PlugIns/`, ordered by their bundle's name.
    package var extensions: [ExtensionManifest]
    /// `NSSupportsLiveActivities`: the app has Live Activities (and a push-to-start token). False in registries written
    /// before Herald read it: reinstall the app.
    package var supportsLiveActivities = false
    /// `NSSupportsLiveActivitiesFrequentUpdates`: its activities may take frequent priority-10 updates.
    package var supportsFrequentUpdates = false

    package init(
        bundleIdentifier: String, displayName: String? = nil, iconFile: String? = nil, bundleDirectory: URL, executable: URL,
        extensions: [ExtensionManifest] = []
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.displayName = displayName
        self.iconFile = iconFile
        self.bundleDirectory = bundleDirectory
        self.executable = executable
        self.extensions = extensions
    }

    /// The app's notification service extension, if it has one (at most one).
    package var serviceExtension: ExtensionManifest? {
        extensions.first { $0.kind == .service }
    }

    /// The app's widget extensions, which draw its Live Activities: the first whose widget draws an activity's
    /// attributes type draws it.
    package var widgetExtensions: [ExtensionManifest] {
        extensions.filter { $0.kind == .widget }
    }

    /// The content extension whose `UNNotificationExtensionCategory` names `category`.
    package func contentExtension(forCategory category: String) -> ExtensionManifest? {
        extensions.first { $0.kind == .content && $0.categories.contains(category) }
    }

    /// Reads an app bundle.
    ///
    /// - Parameters:
    ///   - path: the `.app` directory or its `Info.plist` (relative paths are taken from the current directory).
    ///   - executableDirectory: where to look for `CFBundleExecutable` of the app and its extensions when the
    ///     bundle does not hold them, such as SwiftPM's `.build/debug`.
    /// - Throws: `AppManifestError` naming the file and key: no `Info.plist`, not a property list, no
    ///   `CFBundleIdentifier` or `CFBundleExecutable`, an executable found nowhere or not executable, an
    ///   extension of another extension point, an extension id not prefixed by the app's, two service
    ///   extensions, a content extension without a category, or two content extensions for one category.
    package static func load(from path: URL, executableDirectory: URL? = nil) throws(AppManifestError) -> AppManifest {
        let (bundle, plist) = try locate(path)
        let info = try BundleInfoPlist.read(bundle: bundle, file: plist, what: "app bundle")
        let identifier = try info.bundleIdentifier()
        var displayName = try info.string("CFBundleDisplayName")
        if displayName == nil { displayName = try info.string("CFBundleName") }
        let iconFile = try info.string("CFBundleIconFile").map { $0.contains(".") ? $0 : $0 + ".png" }
        let supportsLiveActivities = try info.bool("NSSupportsLiveActivities") ?? false
        let supportsFrequentUpdates = try info.bool("NSSupportsLiveActivitiesFrequentUpdates") ?? false
        let directory = executableDirectory.map(ResolvedPath.resolveIfPossible)
        let executable = try info.executable(executableDirectory: directory)
        var extensions: [ExtensionManifest] = []
        for appex in try extensionBundles(in: bundle) {
            extensions.append(try ExtensionManifest.load(bundle: appex, appIdentifier: identifier, executableDirectory: directory))
        }
        try checkUnique(extensions, bundle: bundle)
        var manifest = AppManifest(
            bundleIdentifier: identifier, displayName: displayName, iconFile: iconFile, bundleDirectory: bundle,
            executable: executable, extensions: extensions
        )
        manifest.supportsLiveActivities = supportsLiveActivities
        manifest.supportsFrequentUpdates = supportsFrequentUpdates
        return manifest
    }

    /// The bundle directory and Info.plist for `path` (either of them).
    private static func locate(_ path: URL) throws(AppManifestError) -> (bundle: URL, plist: URL) {
        guard let resolved = ResolvedPath.resolve(path) else {
            throw AppManifestError(
                .missingInfoPlist, file: path,
                "\(path.standardizedFileURL.path) does not exist; give the path of an app bundle (a Name.app directory) or of its Info.plist"
            )
        }
        if resolved.hasDirectoryPath {
            return (resolved, resolved.appendingPathComponent("Info.plist", isDirectory: false))
        }
        let bundle = resolved.deletingLastPathComponent()
        return (URL(fileURLWithPath: bundle.path, isDirectory: true), resolved)
    }

    /// `bundle/PlugIns/*.appex` directories, by name.
    private static func extensionBundles(in bundle: URL) throws(AppManifestError) -> [URL] {
        let plugIns = bundle.appendingPathComponent("PlugIns", isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: plugIns.path, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: plugIns.path)
        } catch {
            throw AppManifestError(.unreadableBundle, file: plugIns, "cannot list \(plugIns.path): \(error.localizedDescription)", underlying: error)
        }
        return names.filter { $0.hasSuffix(".appex") }.sorted().compactMap { name in
            ResolvedPath.resolve(plugIns.appendingPathComponent(name, isDirectory: true)).flatMap { $0.hasDirectoryPath ? $0 : nil }
        }
    }

    /// At most one service extension; one extension per bundle id and per content category.
    private static func checkUnique(_ extensions: [ExtensionManifest], bundle: URL) throws(AppManifestError) {
        let services = extensions.filter { $0.kind == .service }
        if services.count > 1 {
            let named = services.map { "\($0.bundleDirectory.lastPathComponent) (\($0.bundleIdentifier))" }.joined(separator: " and ")
            throw AppManifestError(
                .duplicateServiceExtension, file: bundle,
                "\(bundle.path) has \(services.count) notification service extensions, \(named); an app has at most one — remove the others from PlugIns"
            )
        }
        var seen: [String: ExtensionManifest] = [:]
        var categories: [String: ExtensionManifest] = [:]
        for item in extensions {
            if let earlier = seen[item.bundleIdentifier] {
                throw AppManifestError(
                    .duplicateExtension, file: bundle,
                    "\(earlier.bundleDirectory.lastPathComponent) and \(item.bundleDirectory.lastPathComponent) in \(bundle.path) share the bundle id \(item.bundleIdentifier); give each extension its own CFBundleIdentifier"
                )
            }
            seen[item.bundleIdentifier] = item
            for category in item.categories where item.kind == .content {
                if let earlier = categories[category] {
                    throw AppManifestError(
                        .duplicateExtension, file: bundle,
                        "the content extensions \(earlier.bundleIdentifier) and \(item.bundleIdentifier) both name the category \(category) in UNNotificationExtensionCategory; one category has one content extension"
                    )
                }
                categories[category] = item
            }
        }
    }
}

extension AppManifest {
    private enum CodingKeys: String, CodingKey {
        case bundleIdentifier, displayName, iconFile, bundleDirectory, executable, extensions, supportsLiveActivities, supportsFrequentUpdates
    }

    /// Paths are stored as plain absolute paths.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleIdentifier = try container.decode(String.self, forKey: .bundleIdentifier)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        iconFile = try container.decodeIfPresent(String.self, forKey: .iconFile)
        bundleDirectory = URL(fileURLWithPath: try container.decode(String.self, forKey: .bundleDirectory), isDirectory: true)
        executable = URL(fileURLWithPath: try container.decode(String.self, forKey: .executable), isDirectory: false)
        extensions = try container.decode([ExtensionManifest].self, forKey: .extensions)
        supportsLiveActivities = try container.decodeIfPresent(Bool.self, forKey: .supportsLiveActivities) ?? false
        supportsFrequentUpdates = try container.decodeIfPresent(Bool.self, forKey: .supportsFrequentUpdates) ?? false
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bundleIdentifier, forKey: .bundleIdentifier)
        try container.encodeIfPresent(displayName, forKey: .displayName)
        try container.encodeIfPresent(iconFile, forKey: .iconFile)
        try container.encode(bundleDirectory.path, forKey: .bundleDirectory)
        try container.encode(executable.path, forKey: .executable)
        try container.encode(extensions, forKey: .extensions)
        if supportsLiveActivities { try container.encode(true, forKey: .supportsLiveActivities) }
        if supportsFrequentUpdates { try container.encode(true, forKey: .supportsFrequentUpdates) }
    }
}
