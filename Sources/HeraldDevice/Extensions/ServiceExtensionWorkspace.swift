import Foundation

/// One run's private directory, beside the app's attachment store so that attachment files move into the store
/// by renaming. `container/` is the extension's own container, as iOS gives each extension one: its home, with
/// `Documents/`, `Library/Caches/`, `Library/Application Support/`, `Library/Preferences/` and `tmp/` (its
/// working directory), so that caches, documents and temporary files all land inside it. `result.json`, beside
/// the container, is where it writes its result. All of it, 0700, is removed when the run ends.
struct ServiceExtensionWorkspace: Sendable {
    let directory: URL
    /// `container` with symbolic links resolved, to tell whether a file is inside it.
    let resolvedContainer: URL

    var container: URL { directory.appendingPathComponent("container", isDirectory: true) }
    var documents: URL { container.appendingPathComponent("Documents", isDirectory: true) }
    var caches: URL { container.appendingPathComponent("Library/Caches", isDirectory: true) }
    var applicationSupport: URL { container.appendingPathComponent("Library/Application Support", isDirectory: true) }
    var preferences: URL { container.appendingPathComponent("Library/Preferences", isDirectory: true) }
    var temporaryDirectory: URL { container.appendingPathComponent("tmp", isDirectory: true) }
    var resultFile: URL { directory.appendingPathComponent("result.json") }

    /// Makes `ATTACHMENT_STORE/../.service-extension-UUID/` and the container in it, readable only by this user.
    static func create(besideStore store: URL) throws -> ServiceExtensionWorkspace {
        let directory = store.deletingLastPathComponent().appendingPathComponent(".service-extension-\(UUID().uuidString)", isDirectory: true)
        let private0700: [FileAttributeKey: Any] = [.posixPermissions: 0o700]
        let manager = FileManager.default
        try manager.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        try manager.createDirectory(at: directory, withIntermediateDirectories: false, attributes: private0700)
        let container = directory.appendingPathComponent("container", isDirectory: true)
        try manager.createDirectory(at: container, withIntermediateDirectories: false, attributes: private0700)
        let workspace = ServiceExtensionWorkspace(directory: directory, resolvedContainer: container.resolvingSymlinksInPath())
        for folder in [workspace.documents, workspace.caches, workspace.applicationSupport, workspace.preferences, workspace.temporaryDirectory] {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: private0700)
        }
        // Foundation finds Documents (and the other user folders) through the XDG user-dirs file, not HOME.
        let folders = [
            "DOCUMENTS": "Documents", "DOWNLOAD": "Downloads", "DESKTOP": "Desktop", "PICTURES": "Pictures",
            "MUSIC": "Music", "VIDEOS": "Movies", "PUBLICSHARE": "Public", "TEMPLATES": "Templates",
        ]
        let userDirs = folders.sorted { $0.key < $1.key }
            .map { "XDG_\($0.key)_DIR=\(container.appendingPathComponent($0.value).path)\n" }.joined()
        try Data(userDirs.utf8).write(to: workspace.preferences.appendingPathComponent("user-dirs.dirs"))
        return workspace
    }

    /// The variables that put the extension's home, caches, data, configuration and temporary files in its
    /// container. (Foundation's `NSHomeDirectory()` on Linux reads the password database, not `HOME`, so it still
    /// names the user's home: files written there are not the extension's.)
    var environment: [String: String] {
        [
            "HOME": container.path,
            "XDG_CACHE_HOME": caches.path,
            "XDG_DATA_HOME": applicationSupport.path,
            "XDG_CONFIG_HOME": preferences.path,
            "TMPDIR": temporaryDirectory.path,
        ]
    }

    /// True if `resolved` (a path with symbolic links resolved) is inside the container.
    func contains(_ resolved: URL) -> Bool {
        resolved.standardizedFileURL.path.hasPrefix(resolvedContainer.standardizedFileURL.path + "/")
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
