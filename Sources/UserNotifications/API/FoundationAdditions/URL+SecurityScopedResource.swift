#if !canImport(Darwin)
public import Foundation

extension URL {
    /// Apple's call before reading a file the system keeps (an attachment of a delivered notification, a file a
    /// person picked), with Apple's signature; swift-corelibs-foundation has none, so `import UserNotifications`
    /// brings this one. Linux has no sandbox to open: true when the file (or directory) can be read.
    ///
    /// ```swift
    /// let attachment = notification.request.content.attachments[0]
    /// if attachment.url.startAccessingSecurityScopedResource() {
    ///     defer { attachment.url.stopAccessingSecurityScopedResource() }
    ///     let data = try Data(contentsOf: attachment.url)
    /// }
    /// ```
    public func startAccessingSecurityScopedResource() -> Bool {
        isFileURL && FileManager.default.isReadableFile(atPath: path)
    }

    /// Ends what ``startAccessingSecurityScopedResource()`` began; nothing to undo on Linux.
    public func stopAccessingSecurityScopedResource() {}
}
#endif
