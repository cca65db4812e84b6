public import Foundation

/// A directory for one test's files, removed when the test ends.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("UserNotificationsTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `bytes` to `name` and returns its URL.
    public func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    /// Writes `head`, extends the file to `size` bytes (sparse zeros) and writes `tail` at its very end.
    public func largeFile(_ name: String, head: [UInt8], size: UInt64, tail: [UInt8] = []) throws -> URL {
        let file = try self.file(name, head)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.truncate(atOffset: size)
        if !tail.isEmpty {
            try handle.seek(toOffset: size - UInt64(tail.count))
            try handle.write(contentsOf: Data(tail))
        }
        return file
    }
}
