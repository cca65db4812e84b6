import Crypto
import Foundation

/// Where communication notifications' avatars are files for the presenters: each is written once to
/// `DATA_DIR/device/avatars/SHA256.png` (its format's extension; 0600).
struct AvatarFiles: Sendable {
    let directory: URL

    /// The avatar's file; nil for bytes that are no image, or when the directory cannot be written.
    func path(of avatar: Data) -> String? {
        guard let format = Self.format(of: avatar) else { return nil }
        let name = SHA256.hash(data: avatar).map { String(format: "%02x", $0) }.joined()
        let file = directory.appendingPathComponent(name + "." + format)
        if FileManager.default.fileExists(atPath: file.path) { return file.path }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try avatar.write(to: file, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            return file.path
        } catch {
            return nil
        }
    }

    /// The image format by its first bytes: png, jpeg, gif or webp; nil for anything else.
    static func format(of data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "gif" }
        if bytes.count == 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return "webp" }
        return nil
    }
}
