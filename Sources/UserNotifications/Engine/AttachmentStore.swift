package import Foundation

/// An app's attachment files, `DATA_DIR/attachments/BUNDLE_ID/`. Files are moved in when a request is added
/// (copied when they live in the app's bundle directory), and deleted when their notification goes.
package struct AttachmentStore: Sendable {
    package let directory: URL
    /// Files inside it are copied, not moved (Apple copies from the app bundle, which is read-only).
    package let bundleDirectory: URL
    /// The most the app's attachments may take together.
    package let capacity: UInt64

    package static let defaultCapacity: UInt64 = 200_000_000

    package init(directory: URL, bundleDirectory: URL, capacity: UInt64 = AttachmentStore.defaultCapacity) {
        self.directory = directory
        self.bundleDirectory = bundleDirectory.standardizedFileURL
        self.capacity = capacity
    }

    /// Validates each attachment again and moves it into the store; its type becomes the one validation found.
    ///
    /// - Throws: The validator's `UNError` (invalid URL, unrecognized type, size, corrupt), or
    ///   `attachmentMoveIntoDataStoreFailed` when the store is full or the file cannot be moved.
    package func take(_ attachments: [AttachmentRecord]) throws(UNError) -> [AttachmentRecord] {
        guard !attachments.isEmpty else { return [] }
        var taken: [AttachmentRecord] = []
        var moves: [(from: URL, to: URL, copied: Bool)] = []
        var used = usedBytes()
        do throws(UNError) {
            for var attachment in attachments {
                if isInStore(attachment.url) {
                    taken.append(attachment)
                    continue
                }
                let validated = try AttachmentValidator.validate(url: attachment.url, parsedOptions: attachment.options)
                guard used + validated.size <= capacity else {
                    throw UNError(.attachmentMoveIntoDataStoreFailed, "the app's attachment store is full (\(capacity / 1_000_000) MB)")
                }
                let destination = directory.appendingPathComponent("\(UUID().uuidString)-\(attachment.url.lastPathComponent)")
                let copied = attachment.url.standardizedFileURL.path.hasPrefix(bundleDirectory.path + "/")
                do {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                    if copied {
                        try FileManager.default.copyItem(at: attachment.url, to: destination)
                    } else {
                        try FileManager.default.moveItem(at: attachment.url, to: destination)
                    }
                } catch {
                    throw UNError(
                        .attachmentMoveIntoDataStoreFailed,
                        "cannot move \(attachment.url.path) into the attachment store: \(error.localizedDescription)")
                }
                moves.append((attachment.url, destination, copied))
                used += validated.size
                attachment.url = destination
                attachment.type = validated.format.typeIdentifier
                taken.append(attachment)
            }
        } catch {
            // Nothing half-done: files already moved go back where the app had them.
            for move in moves.reversed() {
                if move.copied {
                    try? FileManager.default.removeItem(at: move.to)
                } else {
                    try? FileManager.default.moveItem(at: move.to, to: move.from)
                }
            }
            throw error
        }
        return taken
    }

    /// Deletes the store's files of `attachments`.
    package func release(_ attachments: [AttachmentRecord]) {
        for attachment in attachments where isInStore(attachment.url) {
            try? FileManager.default.removeItem(at: attachment.url)
        }
    }

    private func isInStore(_ url: URL) -> Bool {
        url.standardizedFileURL.path.hasPrefix(directory.standardizedFileURL.path + "/")
    }

    private func usedBytes() -> UInt64 {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey])) ?? []
        return files.reduce(0) { $0 + UInt64((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
    }
}
