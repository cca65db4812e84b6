// What the end-to-end example's provider encrypts and its service extension decrypts: the alert's text, sealed
// with ChaChaPoly under a key the provider and the app share. The gateway and the wire only see the ciphertext.
import Crypto
import Foundation
import UserNotifications

/// The alert text of one message.
public struct EndToEndMessage: Codable, Equatable {
    public var title: String?
    public var body: String

    public init(title: String? = nil, body: String) {
        self.title = title
        self.body = body
    }

    /// The payload key holding the sealed message.
    public static let payloadKey = "ciphertext"

    /// The message sealed with `key`: base64 of ChaChaPoly's combined box (nonce, ciphertext, tag).
    public func sealed(with key: SymmetricKey) throws -> String {
        try ChaChaPoly.seal(JSONEncoder().encode(self), using: key).combined.base64EncodedString()
    }

    /// Opens what `sealed(with:)` made.
    /// - Throws: when `sealed` is not base64, was not sealed with `key`, or was changed.
    public init(opening sealed: String, with key: SymmetricKey) throws {
        guard let combined = Data(base64Encoded: sealed) else { throw EndToEndError("the ciphertext is not base64") }
        let plaintext = try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: combined), using: key)
        self = try JSONDecoder().decode(EndToEndMessage.self, from: plaintext)
    }
}

/// The key the provider and the app share, kept in the app group container both the app and its extension find.
public enum EndToEndKey {
    public static let appGroup = "group.com.example.e2e"
    public static let fileName = "message.key"

    /// `CONTAINER/message.key` of the app group.
    public static func defaultURL() throws -> URL {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else {
            throw EndToEndError("the app group container of \(appGroup) cannot be made (is HERALD_DATA_DIR writable?)")
        }
        return container.appendingPathComponent(fileName)
    }

    /// Reads the 256-bit key at `url`.
    public static func load(from url: URL) throws -> SymmetricKey {
        let data = try Data(contentsOf: url)
        guard data.count == 32 else { throw EndToEndError("\(url.path) holds \(data.count) bytes, not a 256-bit key") }
        return SymmetricKey(data: data)
    }

    /// Reads the key at `url`, or makes a new random one there (readable only by the user) if there is none.
    public static func loadOrCreate(at url: URL) throws -> SymmetricKey {
        if FileManager.default.fileExists(atPath: url.path) { return try load(from: url) }
        let key = SymmetricKey(size: .bits256)
        let data = key.withUnsafeBytes { Data($0) }
        guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw EndToEndError("cannot write a new key to \(url.path)")
        }
        return key
    }
}

public struct EndToEndError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
