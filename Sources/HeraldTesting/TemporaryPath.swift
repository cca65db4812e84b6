import Foundation
import Synchronization

/// Paths for a test's files and directories under the system's temporary directory, all removed when the test
/// process exits, together with everything named after them (`PATH-wal`, `PATH-key.p8`, …), so that test runs
/// do not pile up files.
public enum TemporaryPath {
    private static let made = Mutex<[String]>([])
    private static let removalAtExit: Void = {
        atexit { TemporaryPath.removeAll() }
    }()

    /// A new path `TMPDIR/PREFIX-UUID` + `suffix`; nothing is created there.
    public static func make(_ prefix: String, suffix: String = "") -> String {
        _ = removalAtExit
        let path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)\(suffix)"
        made.withLock { $0.append(path) }
        return path
    }

    /// Removes `path` and everything beside it whose name begins with its name, now rather than at exit.
    public static func remove(_ path: String) {
        remove([path])
    }

    private static func removeAll() {
        remove(made.withLock { $0 })
    }

    private static func remove(_ paths: [String]) {
        let directory = NSTemporaryDirectory()
        let names = Set(paths.map { URL(fileURLWithPath: $0).lastPathComponent })
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where names.contains(where: entry.hasPrefix) {
            try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(entry))
        }
    }
}
