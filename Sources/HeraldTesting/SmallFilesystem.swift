import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A real, tiny filesystem for tests of a full disk: a tmpfs of a few MiB mounted on a fresh directory, which
/// ``fill()`` fills to the last byte (as `dd` into the same filesystem would) and ``free()`` empties again.
///
/// Mounting needs root (`CAP_SYS_ADMIN`), as on CI; elsewhere ``unavailableReason`` says why tests skip:
/// ```swift
/// @Test(.enabled(if: SmallFilesystem.unavailableReason == nil, "mounting a tmpfs is not permitted here"))
/// func diskFull() throws {
///     let disk = try SmallFilesystem(size: 2 << 20)
///     defer { disk.unmount() }
///     try disk.fill()
/// }
/// ```
/// Linux refuses to remount a filesystem read-only while a file on it is open for writing (EBUSY), so
/// ``remount(readOnly:)`` works only while nothing there is open.
public final class SmallFilesystem: Sendable {
    /// The mount point.
    public let path: String
    /// The filesystem's size in bytes.
    public let size: Int
    private var filler: String { path + "/filler" }

    /// Nil when tmpfs mounts work here; else why not (not root, a container without CAP_SYS_ADMIN).
    public static let unavailableReason: String? = {
        do {
            let probe = try SmallFilesystem(size: 64 << 10)
            probe.unmount()
            return nil
        } catch {
            return "\(error)"
        }
    }()

    /// Mounts a tmpfs of `size` bytes on a new directory under the temporary directory.
    /// - Throws: ``Failure`` when mounting is not permitted.
    public init(size: Int) throws {
        path = TemporaryPath.make("herald-small-fs")
        self.size = size
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(size),mode=0755") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            throw Failure(description: "cannot mount a tmpfs on \(path): \(reason) (needs root)")
        }
    }

    deinit { unmount() }

    /// Writes a file until the filesystem has no byte left; returns how many bytes it took.
    @discardableResult
    public func fill() throws -> Int {
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(filler): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xA5, count: 4096)
        var written = 0
        while true {
            let count = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
                continue
            }
            if errno == EINTR { continue }
            guard errno == ENOSPC else { throw Failure(description: "cannot fill \(path): \(String(cString: strerror(errno)))") }
            // The last page may have taken part of a chunk: fill byte by byte until nothing fits.
            var byte: UInt8 = 0xA5
            while write(fd, &byte, 1) == 1 { written += 1 }
            return written
        }
    }

    /// Deletes what ``fill()`` wrote: the space is there again.
    public func free() {
        unlink(filler)
    }

    /// Bytes still free.
    public var available: Int {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return 0 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// Remounts the filesystem read-only or writable again.
    /// - Throws: ``Failure`` (EBUSY) when making it read-only while a file on it is open for writing.
    public func remount(readOnly: Bool) throws {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        guard mount("tmpfs", path, "tmpfs", flags, "size=\(size),mode=0755") == 0 else {
            throw Failure(description: "cannot remount \(path) \(readOnly ? "read-only" : "writable"): \(String(cString: strerror(errno)))")
        }
    }

    /// Unmounts (lazily, so files a process still holds open do not keep it) and removes the mount point;
    /// safe to call more than once.
    public func unmount() {
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }

    /// Why the filesystem could not be mounted, filled or remounted.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
}
