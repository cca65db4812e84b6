package import Foundation
package import UserNotifications

/// An extension of an installed app (a notification service or content extension, or a widget extension): a `Name.appex` bundle in the app's `PlugIns/` directory,
/// as its `Info.plist` describes it.
///
/// ```xml
/// <key>CFBundleIdentifier</key>   <string>com.example.podcast.service</string>
/// <key>CFBundleExecutable</key>   <string>PodcastService</string>
/// <key>NSExtension</key>
/// <dict>
///     <key>NSExtensionPointIdentifier</key> <string>com.apple.usernotifications.service</string>
///     <key>NSExtensionPrincipalClass</key>  <string>NotificationService</string>
/// </dict>
/// ```
package struct ExtensionManifest: Codable, Hashable, Sendable {
    /// The extension point (`NSExtensionPointIdentifier`).
    package enum Kind: String, Codable, Sendable {
        /// A notification service extension: rewrites remote notifications with `mutable-content: 1`.
        case service = "com.apple.usernotifications.service"
        /// A notification content extension: draws the expanded notification of its categories.
        case content = "com.apple.usernotifications.content-extension"
        /// A widget extension: draws the app's Live Activities (ActivityKit's `Widget`).
        case widget = "com.apple.widgetkit-extension"

        /// "service", "content" or "widget", for people.
        package var shortName: String {
            switch self {
            case .service: "service"
            case .content: "content"
            case .widget: "widget"
            }
        }
    }

    /// `CFBundleIdentifier`: the app's bundle id, a dot, and more (`com.example.podcast.service`).
    package var bundleIdentifier: String
    package var kind: Kind
    /// The `.appex` directory, absolute.
    package var bundleDirectory: URL
    /// `CFBundleExecutable`, found in the `.appex` directory or the executable directory; absolute, symlinks resolved.
    package var executable: URL
    /// `NSExtensionPrincipalClass`: the extension's `UNNotificationServiceExtension` (or content extension) class.
    package var principalClass: String?
    /// `UNNotificationExtensionCategory` (a string or an array of strings in the plist); empty for a service
    /// extension that names none.
    package var categories: [String]
    /// Every key of `NSExtensionAttributes`, as written.
    package var attributes: [String: PropertyListValue]

    package init(
        bundleIdentifier: String, kind: Kind, bundleDirectory: URL, executable: URL, principalClass: String? = nil,
        categories: [String] = [], attributes: [String: PropertyListValue] = [:]
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.kind = kind
        self.bundleDirectory = bundleDirectory
        self.executable = executable
        self.principalClass = principalClass
        self.categories = categories
        self.attributes = attributes
    }

    /// `UNNotificationExtensionInitialContentSizeRatio`: the content view's height as a fraction of its width.
    package var initialContentSizeRatio: Double? {
        switch attributes["UNNotificationExtensionInitialContentSizeRatio"] {
        case .double(let ratio)?: ratio
        case .integer(let ratio)?: Double(ratio)
        case .string(let text)?: Double(text)
        default: nil
        }
    }

    /// `UNNotificationExtensionDefaultContentHidden`: hide the notification's own title and body below the extension's view.
    package var defaultContentHidden: Bool { flag("UNNotificationExtensionDefaultContentHidden") }

    /// `UNNotificationExtensionOverridesDefaultTitle`: the extension's title replaces the app's name.
    package var overridesDefaultTitle: Bool { flag("UNNotificationExtensionOverridesDefaultTitle") }

    /// `UNNotificationExtensionUserInteractionEnabled`: the extension's view takes touches (clicks).
    package var userInteractionEnabled: Bool { flag("UNNotificationExtensionUserInteractionEnabled") }

    /// A boolean attribute: `<true/>`, a non-zero number, or the string YES/true/1.
    private func flag(_ key: String) -> Bool {
        switch attributes[key] {
        case .bool(let value)?: value
        case .integer(let value)?: value != 0
        case .string(let text)?: ["yes", "true", "1"].contains(text.lowercased())
        default: false
        }
    }
}

extension ExtensionManifest {
    private enum CodingKeys: String, CodingKey {
        case bundleIdentifier, kind, bundleDirectory, executable, principalClass, categories, attributes
    }

    /// Paths are stored as plain absolute paths.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleIdentifier = try container.decode(String.self, forKey: .bundleIdentifier)
        kind = try container.decode(Kind.self, forKey: .kind)
        bundleDirectory = URL(fileURLWithPath: try container.decode(String.self, forKey: .bundleDirectory), isDirectory: true)
        executable = URL(fileURLWithPath: try container.decode(String.self, forKey: .executable), isDirectory: false)
        principalClass = try container.decodeIfPresent(String.self, forKey: .principalClass)
        categories = try container.decode([String].self, forKey: .categories)
        attributes = try container.decode([String: PropertyListValue].self, forKey: .attributes)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bundleIdentifier, forKey: .bundleIdentifier)
        try container.encode(kind, forKey: .kind)
        try container.encode(bundleDirectory.path, forKey: .bundleDirectory)
        try container.encode(executable.path, forKey: .executable)
        try container.encodeIfPresent(principalClass, forKey: .principalClass)
        try container.encode(categories, forKey: .categories)
        try container.encode(attributes, forKey: .attributes)
    }
}
