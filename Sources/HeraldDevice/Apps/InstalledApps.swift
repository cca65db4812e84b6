package import Foundation
import UserNotifications

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The apps installed on this machine: `DATA_DIR/device/apps.json` (directory 0700, file 0600).
///
/// Every call reads the file afresh, so `herald apps install` takes effect while a daemon runs; changes hold
/// an exclusive lock (`apps.json.lock`) across read-modify-write and replace the file atomically, so two
/// installs at once both land and a reader never sees half a file.
///
/// ```swift
/// let apps = InstalledApps(dataDirectory: AppIdentity.dataDirectory())
/// try apps.install(try AppManifest.load(from: URL(fileURLWithPath: "Podcast.app")))
/// let podcast = try apps.app(bundleID: "com.example.podcast")
/// ```
package struct InstalledApps: Sendable {
    /// `DATA_DIR/device/apps.json`.
    package let file: URL
    private let directory: URL

    /// The registry of the data directory `dataDirectory` (`AppIdentity.dataDirectory()`).
    package init(dataDirectory: URL) {
        directory = dataDirectory.appendingPathComponent("device", isDirectory: true)
        file = directory.appendingPathComponent("apps.json", isDirectory: false)
    }

    private struct Registry: Codable {
        var version = 1
        var apps: [AppManifest]
    }

    /// Installs `app`, replacing an installed app with the same bundle id.
    /// - Returns: true when it replaced one.
    /// - Throws: `InstalledAppsError` when the registry cannot be read or written, or another app (another
    ///   bundle id) is installed with the same executable — the daemon tells apps apart by their executable.
    @discardableResult
    package func install(_ app: AppManifest) throws -> Bool {
        try changing { apps in
            if let other = apps.first(where: { $0.bundleIdentifier != app.bundleIdentifier && $0.executable.path == app.executable.path }) {
                throw InstalledAppsError(
                    "\(app.executable.path) is already the executable of \(other.bundleIdentifier); each app needs its own executable (remove the other with: herald apps remove \(other.bundleIdentifier))"
                )
            }
            let replaced = apps.contains { $0.bundleIdentifier == app.bundleIdentifier }
            apps.removeAll { $0.bundleIdentifier == app.bundleIdentifier }
            apps.append(app)
            return replaced
        }
    }

    /// Removes the app `bundleID`.
    /// - Returns: false when it was not installed.
    /// - Throws: `InstalledAppsError` when the registry cannot be read or written.
    @discardableResult
    package func remove(bundleID: String) throws -> Bool {
        try changing { apps in
            let count = apps.count
            apps.removeAll { $0.bundleIdentifier == bundleID }
            return apps.count != count
        }
    }

    /// Every installed app, by bundle id.
    /// - Throws: `InstalledAppsError` when the registry exists but cannot be read.
    package func all() throws -> [AppManifest] {
        try read()
    }

    /// The installed app `bundleID`.
    package func app(bundleID: String) throws -> AppManifest? {
        try read().first { $0.bundleIdentifier == bundleID }
    }

    /// The installed app whose own executable is `executable` (symlinks resolved on both sides); an
    /// extension's executable does not match.
    package func app(executable: URL) throws -> AppManifest? {
        let path = ResolvedPath.resolveIfPossible(executable).path
        return try read().first { $0.executable.path == path }
    }

    // MARK: - The file

    private func read() throws(InstalledAppsError) -> [AppManifest] {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return []
        } catch {
            guard FileManager.default.fileExists(atPath: file.path) else { return [] }
            throw InstalledAppsError("cannot read \(file.path): \(error.localizedDescription)", underlying: error)
        }
        do {
            return try JSONDecoder().decode(Registry.self, from: data).apps
        } catch {
            throw InstalledAppsError(
                "\(file.path) is not a Herald app registry (\(error)); move it aside and install the apps again with herald apps install",
                underlying: error
            )
        }
    }

    /// Runs `change` on the apps under the lock and writes the result.
    private func changing<Result>(_ change: (inout [AppManifest]) throws -> Result) throws -> Result {
        try prepareDirectory()
        let lock = open(file.path + ".lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            throw InstalledAppsError("cannot open \(file.path).lock: \(String(cString: strerror(errno)))")
        }
        defer { close(lock) }  // closing releases the lock
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw InstalledAppsError("cannot lock \(file.path).lock: \(String(cString: strerror(errno)))") }
        }
        var apps = try read()
        let result = try change(&apps)
        apps.sort { $0.bundleIdentifier < $1.bundleIdentifier }
        try write(apps)
        return result
    }

    private func prepareDirectory() throws(InstalledAppsError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw InstalledAppsError("cannot create \(directory.path): \(error.localizedDescription)", underlying: error)
        }
    }

    /// Writes a temporary file (0600), flushes it, and renames it over the registry.
    private func write(_ apps: [AppManifest]) throws(InstalledAppsError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(Registry(apps: apps))
        } catch {
            throw InstalledAppsError("cannot encode the app registry: \(error)", underlying: error)
        }
        let temporary = file.path + ".tmp-\(getpid())-\(UUID().uuidString)"
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw InstalledAppsError("cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        var failure: String?
        do {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            failure = error.localizedDescription
        }
        close(descriptor)
        if failure == nil, rename(temporary, file.path) == 0 { return }
        let reason = failure ?? String(cString: strerror(errno))
        unlink(temporary)
        throw InstalledAppsError("cannot write \(file.path): \(reason)")
    }
}
