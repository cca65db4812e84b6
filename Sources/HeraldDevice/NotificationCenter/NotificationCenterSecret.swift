import Foundation
import HeraldWire

/// The device's notification center secret: the first part of every path of its page, so that only someone who
/// was given the address (the daemon prints it) can read the notifications, and no other local user or web page can.
/// Made on first use and kept in `DATA_DIR/device/notification-center-secret` (0600), so the address stays the same
/// across restarts.
enum NotificationCenterSecret {
    static func load(dataDirectory: URL) throws -> String {
        let file = dataDirectory.appendingPathComponent("device/notification-center-secret")
        if let saved = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), saved.count >= 32 {
            return saved
        }
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let secret = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        guard FileManager.default.createFile(atPath: file.path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        return secret
    }
}
