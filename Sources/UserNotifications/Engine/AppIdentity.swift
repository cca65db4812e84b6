package import Foundation

/// Which app this process is, and where the notification state of the machine's apps lives.
package struct AppIdentity: Sendable, Hashable {
    /// `HERALD_BUNDLE_ID`, else the executable's name.
    package var bundleIdentifier: String
    /// `HERALD_DATA_DIR`, else `$XDG_DATA_HOME/herald`, else `~/.local/share/herald`.
    package var dataDirectory: URL

    package init(bundleIdentifier: String, dataDirectory: URL) {
        self.bundleIdentifier = bundleIdentifier
        self.dataDirectory = dataDirectory
    }

    package static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> AppIdentity {
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "app").lastPathComponent
        let bundle = environment["HERALD_BUNDLE_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? executable
        return AppIdentity(bundleIdentifier: bundle, dataDirectory: dataDirectory(environment: environment))
    }

    package static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let path = environment["HERALD_DATA_DIR"], !path.isEmpty { return URL(fileURLWithPath: path) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg).appendingPathComponent("herald") }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/herald")
    }

    /// `DATA_DIR/notifications.sqlite`: pending and delivered notifications, categories, settings and badges of every app.
    package var storePath: String { dataDirectory.appendingPathComponent("notifications.sqlite").path }

    /// `DATA_DIR/attachments/BUNDLE_ID/`: the attachment files of this app's notifications.
    package var attachmentDirectory: URL {
        dataDirectory.appendingPathComponent("attachments").appendingPathComponent(bundleIdentifier)
    }
}
