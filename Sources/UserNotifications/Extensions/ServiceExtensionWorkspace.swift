import Foundation

/// One run's private directory, beside the app's attachment store so that attachment files move into the store
/// by renaming: `tmp/` is the extension's `TMPDIR` (and working directory), `result.json` is where it writes its
/// result. Removed when the run ends.
struct ServiceExtensionWorkspace: Sendable {
    let directory: URL
    /// `directory` with symbolic links resolved, to tell whether a file is inside it.
    let resolvedDirectory: URL

    var temporaryDirectory: URL { directory.appendingPathComponent("tmp", isDirectory: true) }
    var resultFile: URL { directory.appendingPathComponent("result.json") }

    /// Makes `ATTACHMENT_STORE/../.service-extension-UUID/tmp/`, readable only by this user.
    static func create(besideStore store: URL) throws -> ServiceExtensionWorkspace {
        let directory = store.deletingLastPathComponent().appendingPathComponent(".service-extension-\(UUID().uuidString)", isDirectory: true)
        let private0700: [FileAttributeKey: Any] = [.posixPermissions: 0o700]
        try FileManager.default.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: private0700)
        let workspace = ServiceExtensionWorkspace(directory: directory, resolvedDirectory: directory.resolvingSymlinksInPath())
        try FileManager.default.createDirectory(at: workspace.temporaryDirectory, withIntermediateDirectories: false, attributes: private0700)
        return workspace
    }

    /// True if `resolved` (a path with symbolic links resolved) is inside the workspace.
    func contains(_ resolved: URL) -> Bool {
        resolved.standardizedFileURL.path.hasPrefix(resolvedDirectory.standardizedFileURL.path + "/")
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
