import Crypto
import Foundation
import Synchronization

/// The image files the notification center page may load: card attachments and the images content extensions draw.
/// Each is named by a token (a digest of its path) when the page is told of it; nothing else on disk can be fetched.
package final class ServedFiles: Sendable {
    private struct State {
        var paths: [String: String] = [:]
        var order: [String] = []
    }

    private let state = Mutex(State())
    /// How many files are remembered; the oldest are forgotten first.
    private let capacity: Int

    package init(capacity: Int = 1000) {
        self.capacity = capacity
    }

    /// The image types pages draw, by file extension.
    static let imageTypes = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif"]

    /// The page's address of an image at `path` (relative to the page), or nil for a file that is not an image.
    package func address(of path: String) -> String? {
        guard Self.imageTypes[(path as NSString).pathExtension.lowercased()] != nil else { return nil }
        let token = SHA256.hash(data: Data(path.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        state.withLock { state in
            guard state.paths.updateValue(path, forKey: token) == nil else { return }
            state.order.append(token)
            if state.order.count > capacity { state.paths.removeValue(forKey: state.order.removeFirst()) }
        }
        return "files/\(token)"
    }

    /// The path and content type of a token given out.
    package func file(_ token: String) -> (path: String, contentType: String)? {
        guard let path = state.withLock({ $0.paths[token] }),
            let type = Self.imageTypes[(path as NSString).pathExtension.lowercased()]
        else { return nil }
        return (path, type)
    }
}
