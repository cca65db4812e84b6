import Foundation
import HeraldDevice
import HeraldWire
import UserNotifications

/// How `herald apps` shows an installed app: a few lines for people, a JSON object for scripts.
enum AppListing {
    /// ```
    /// com.example.podcast (Podcast)
    ///   executable  /home/me/podcast/.build/debug/PodcastApp
    ///   service     com.example.podcast.service  /home/me/podcast/.build/debug/PodcastService
    ///   content     com.example.podcast.content  /home/me/podcast/.build/debug/PodcastContent  categories: episode
    /// ```
    static func text(_ app: AppManifest) -> String {
        var lines = [app.bundleIdentifier + (app.displayName.map { " (\($0))" } ?? "")]
        lines.append("  executable  \(app.executable.path)")
        for item in app.extensions {
            var line =
                "  \(item.kind.shortName.padding(toLength: 10, withPad: " ", startingAt: 0))  \(item.bundleIdentifier)  \(item.executable.path)"
            if !item.categories.isEmpty { line += "  categories: " + item.categories.joined(separator: ", ") }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    static func jsonFields(_ app: AppManifest) -> [String: JSONValue] {
        [
            "bundleIdentifier": .string(app.bundleIdentifier),
            "displayName": app.displayName.map(JSONValue.string) ?? .null,
            "bundleDirectory": .string(app.bundleDirectory.path),
            "executable": .string(app.executable.path),
            "extensions": .array(
                app.extensions.map { item in
                    .object([
                        "bundleIdentifier": .string(item.bundleIdentifier),
                        "kind": .string(item.kind.shortName),
                        "extensionPoint": .string(item.kind.rawValue),
                        "bundleDirectory": .string(item.bundleDirectory.path),
                        "executable": .string(item.executable.path),
                        "principalClass": item.principalClass.map(JSONValue.string) ?? .null,
                        "categories": .array(item.categories.map(JSONValue.string)),
                        "attributes": .object(item.attributes.mapValues(json)),
                    ])
                }),
        ]
    }

    /// A plist value in JSON: dates as ISO 8601 text, data as base64.
    private static func json(_ value: PropertyListValue) -> JSONValue {
        switch value {
        case .string(let string): .string(string)
        case .bool(let bool): .bool(bool)
        case .integer(let integer): .integer(integer)
        case .unsignedInteger(let integer): .number(Double(integer))
        case .double(let double): .number(double)
        case .date(let date): .string(date.formatted(.iso8601))
        case .data(let data): .string(data.base64EncodedString())
        case .null: .null
        case .array(let values): .array(values.map(json))
        case .dictionary(let values): .object(values.mapValues(json))
        }
    }
}
