import Crypto
package import Foundation
import Synchronization

/// The images the notification center page may load: card attachments and the images content extensions draw, from
/// their files or, for an image an extension made from bytes (`UIImage(data:)`), from those bytes. Each is named by a
/// token (a digest of its path or its bytes) when the page is told of it; nothing else on disk can be fetched.
package final class ServedFiles: Sendable {
    /// Where a served image's bytes are.
    private enum Source {
        case file(String)
        case bytes(Data, contentType: String)
    }

    private struct State {
        var sources: [String: Source] = [:]
        var order: [String] = []
        /// The bytes held for images without a file.
        var heldBytes = 0
    }

    private let state = Mutex(State())
    /// How many images are remembered; the oldest are forgotten first.
    private let capacity: Int
    /// How many bytes of images without a file are held; the oldest images are forgotten first.
    private let byteCapacity: Int

    package init(capacity: Int = 1000, byteCapacity: Int = 64 << 20) {
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    /// The image types pages draw, by file extension (and by an image's format, for one without a file).
    static let imageTypes = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"]

    /// The page's address of an image at `path` (relative to the page), or nil for a file that is not an image.
    package func address(of path: String) -> String? {
        guard Self.imageTypes[(path as NSString).pathExtension.lowercased()] != nil else { return nil }
        return remember(Self.token(Data(path.utf8)), .file(path))
    }

    /// The page's address of an image made from `data` in `format` (`png`, `jpeg`, `gif`, `webp`), or nil for
    /// another format.
    package func address(ofImage data: Data, format: String) -> String? {
        guard let type = Self.imageTypes[format] else { return nil }
        return remember(Self.token(data), .bytes(data, contentType: type))
    }

    /// The bytes and content type of a token given out; nil for an unknown token or a file that is gone.
    package func image(_ token: String) -> (data: Data, contentType: String)? {
        switch state.withLock({ $0.sources[token] }) {
        case .file(let path)?:
            guard let type = Self.imageTypes[(path as NSString).pathExtension.lowercased()],
                let data = FileManager.default.contents(atPath: path)
            else { return nil }
            return (data, type)
        case .bytes(let data, let type)?:
            return (data, type)
        case nil:
            return nil
        }
    }

    private static func token(_ key: Data) -> String {
        SHA256.hash(data: key).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    private func remember(_ token: String, _ source: Source) -> String {
        state.withLock { state in
            guard state.sources[token] == nil else { return }
            state.sources[token] = source
            state.order.append(token)
            if case .bytes(let data, _) = source { state.heldBytes += data.count }
            while state.order.count > capacity || (state.heldBytes > byteCapacity && state.order.count > 1) {
                if case .bytes(let data, _)? = state.sources.removeValue(forKey: state.order.removeFirst()) { state.heldBytes -= data.count }
            }
        }
        return "files/\(token)"
    }
}
