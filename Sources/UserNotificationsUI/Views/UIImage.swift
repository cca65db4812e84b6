public import Foundation

/// An image from a file (an attachment's, say) or from data. The host draws it: the notification center page shows
/// it, the terminal names its type and size.
public final class UIImage: Sendable {
    /// The file it was read from, if any.
    public let path: String?
    public let data: Data

    /// The image in the file at `path`; nil when it cannot be read.
    public init?(contentsOfFile path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.path = path
        self.data = data
    }

    public init?(data: Data) {
        guard !data.isEmpty else { return nil }
        path = nil
        self.data = data
    }

    /// The image's format, from its first bytes: `png`, `jpeg`, `gif`, `webp`, else `image`.
    public var format: String {
        let bytes = Array(data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "gif" }
        if bytes.count >= 12, bytes[0..<4] == ArraySlice("RIFF".utf8), bytes[8..<12] == ArraySlice("WEBP".utf8) { return "webp" }
        return "image"
    }
}
