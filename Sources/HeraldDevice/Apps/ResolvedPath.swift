import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Absolute, symlink-free file paths, so the same file always reads the same way (the daemon learns an app's
/// executable from `/proc/PID/exe`, which the kernel gives resolved).
enum ResolvedPath {
    /// `url` made absolute with every symlink resolved (`realpath(3)`); nil when nothing is there.
    static func resolve(_ url: URL) -> URL? {
        let path = url.standardizedFileURL.path
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        var isDirectory: ObjCBool = false
        let text = String(cString: resolved)
        _ = FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory)
        return URL(fileURLWithPath: text, isDirectory: isDirectory.boolValue)
    }

    /// `url` resolved when something is there, else made absolute and standardized.
    static func resolveIfPossible(_ url: URL) -> URL {
        resolve(url) ?? url.standardizedFileURL
    }

    /// True for a regular file (after following symlinks) this process may execute.
    static func isExecutableFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return false
        }
        return access(url.path, X_OK) == 0
    }
}
