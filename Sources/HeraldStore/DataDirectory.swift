public import Foundation
import HeraldWire

/// The layout of a Herald data directory: the SQLite store, TLS material and secrets.
///
/// The directory is created 0700 and every secret in it 0600.
public struct DataDirectory: Sendable, Hashable {
    public let url: URL

    public init(path: String) {
        self.url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    /// `$XDG_DATA_HOME/herald`, else `~/.local/share/herald`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return xdg + "/herald"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/herald"
    }

    public var path: String { url.path }
    public var storePath: String { url.appendingPathComponent("herald.sqlite").path }
    public var tlsDirectory: URL { url.appendingPathComponent("tls", isDirectory: true) }
    /// The bearer token of the admin API (`/v1/...` on the console port).
    public var adminTokenPath: String { url.appendingPathComponent("admin-token").path }
    /// What `herald device` keeps: its key, and the ids of notifications it has seen.
    public var deviceDirectory: URL { url.appendingPathComponent("device", isDirectory: true) }

    /// The admin token, created (32 random bytes as hex, mode 0600) on first use.
    public func adminToken() throws -> String {
        if let existing = try? String(contentsOfFile: adminTokenPath, encoding: .utf8) {
            let token = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            if !token.isEmpty { return token }
        }
        let token = (0..<32).map { _ in UInt8.random(in: .min ... .max) }.hexString
        try Self.writeSecret(Data((token + "\n").utf8), to: adminTokenPath)
        return token
    }

    /// Creates the directory (and `tls/`) with mode 0700 if needed, and tightens an existing one.
    public func prepare() throws {
        for directory in [url, tlsDirectory] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        }
    }

    /// Writes `contents` to `path` readable by the owner only (0600), replacing any earlier file atomically.
    public static func writeSecret(_ contents: Data, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: contents, attributes: [.posixPermissions: 0o600]) else {
            throw FileWriteError(path: path)
        }
        // rename(2) replaces an existing file atomically. Foundation's replaceItemAt on Linux removed the file
        // and left the new one under its temporary name.
        guard rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw FileWriteError(path: path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// Writes a public file (0644) atomically.
    public static func writePublic(_ contents: Data, to path: String) throws {
        do {
            try contents.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw FileWriteError(path: path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    }
}

/// A file that cannot be written, with the reason in words (Foundation's own text for it is
/// "(NSCocoaErrorDomain error 512.)").
public struct FileWriteError: Error, CustomStringConvertible {
    public let path: String

    public var description: String { "cannot write \(path): \(reason)" }

    private var reason: String {
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else { return "there is no directory \(folder)" }
        guard isDirectory.boolValue else { return "\(folder) is not a directory" }
        guard access(folder, W_OK) == 0 else { return "no permission to write in \(folder)" }
        return "the file cannot be created"
    }
}
