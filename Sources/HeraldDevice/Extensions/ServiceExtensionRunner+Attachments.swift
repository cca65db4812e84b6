import Foundation
import UserNotifications

extension ServiceExtensionRunner {
    /// Validates each of the extension's attachments and moves it into `store`, one at a time, so a bad file
    /// drops only itself. Files are taken only from the run's container (its caches, documents, application
    /// support and temporary directories), the app's group containers (`appGroups`), or the app's bundle directory
    /// (copied): an extension cannot make the daemon move any other file of the machine.
    func take(
        _ attachments: [AttachmentRecord], from workspace: ServiceExtensionWorkspace, appGroups: URL, into store: AttachmentStore,
        dropped: inout [String]
    ) -> [AttachmentRecord] {
        var taken: [AttachmentRecord] = []
        for attachment in attachments {
            guard attachment.url.isFileURL else {
                dropped.append("\(attachment.identifier): \(attachment.url.absoluteString) is not a file URL")
                continue
            }
            guard
                let source = Self.admissibleSource(attachment.url, workspace: workspace, appGroups: appGroups, bundleDirectory: store.bundleDirectory)
            else {
                dropped.append(
                    "\(attachment.identifier): \(attachment.url.path) is outside the extension's container, its app groups and its app's bundle")
                continue
            }
            var candidate = attachment
            candidate.url = source
            do {
                taken += try store.take([candidate])
            } catch {
                dropped.append("\(attachment.identifier): \(error.message)")
            }
        }
        return taken
    }

    /// The file to take for `url`: its resolved path if that is inside the container or an app group container;
    /// the same file under the bundle directory's own path if it is inside the bundle (so the store copies it);
    /// else nil.
    static func admissibleSource(_ url: URL, workspace: ServiceExtensionWorkspace, appGroups: URL, bundleDirectory: URL) -> URL? {
        let resolved = url.standardizedFileURL.resolvingSymlinksInPath().standardizedFileURL
        if workspace.contains(resolved) { return resolved }
        let groups = appGroups.resolvingSymlinksInPath().standardizedFileURL.path + "/"
        // Inside a group's own directory, not the folder of all groups.
        if resolved.path.hasPrefix(groups), resolved.path.dropFirst(groups.count).contains("/") { return resolved }
        let bundle = bundleDirectory.resolvingSymlinksInPath().standardizedFileURL.path + "/"
        if resolved.path.hasPrefix(bundle) {
            return bundleDirectory.appendingPathComponent(String(resolved.path.dropFirst(bundle.count)))
        }
        return nil
    }
}
