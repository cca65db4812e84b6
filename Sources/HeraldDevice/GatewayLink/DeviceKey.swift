package import Crypto
package import Foundation
import HeraldWire

/// The device's identity key, kept in its data directory (`device-key.pem`, mode 0600) so the device
/// keeps its id, and therefore its device tokens, across restarts.
package enum DeviceKey {
    /// Reads the key in `directory`, creating the directory (0700) and a new key on first use.
    package static func loadOrCreate(in directory: URL) throws -> P256.Signing.PrivateKey {
        let path = directory.appendingPathComponent("device-key.pem").path
        if let pem = try? String(contentsOfFile: path, encoding: .utf8) {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        let key = P256.Signing.PrivateKey()
        let temporary = path + ".tmp-\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: PEMFile.contents(key.pemRepresentation), attributes: [.posixPermissions: 0o600]
            )
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
        return key
    }
}
