import Foundation
import HeraldSpawn
import Synchronization

/// Starts an installed app's executable when something waits for it (a response, a background push) and it is
/// not running — what iOS does when it launches an app into the background or foreground. The app's output goes
/// to `DATA_DIR/device/logs/BUNDLE_ID.log`.
final class AppLauncher: Sendable {
    private let dataDirectory: URL
    private let launched = Mutex<[String: ChildProcess]>([:])

    init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

    /// Launches `app` unless a process launched earlier still runs; returns the new process, or nil.
    func launch(_ app: AppManifest, reason: String) throws -> ChildProcess? {
        try launched.withLock { launched in
            if let earlier = launched[app.bundleIdentifier], earlier.isRunning { return nil }
            let logs = dataDirectory.appendingPathComponent("device/logs", isDirectory: true)
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
            let logPath = logs.appendingPathComponent("\(app.bundleIdentifier).log").path
            if !FileManager.default.fileExists(atPath: logPath) {
                _ = FileManager.default.createFile(atPath: logPath, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            defer { try? log.close() }
            log.seekToEndOfFile()
            var environment = ProcessInfo.processInfo.environment
            environment["HERALD_BUNDLE_ID"] = app.bundleIdentifier
            environment["HERALD_DATA_DIR"] = dataDirectory.path
            environment["HERALD_LAUNCH_REASON"] = reason
            let process = try ChildProcess.launch(
                app.executable.path,
                environment: environment,
                directory: app.bundleDirectory.path,
                standardInput: ChildProcess.nullDevice,
                standardOutput: log.fileDescriptor,
                standardError: log.fileDescriptor
            )
            launched[app.bundleIdentifier] = process
            return process
        }
    }

    /// Stops the apps it launched that still run.
    func terminateAll() {
        for process in launched.withLock({ Array($0.values) }) where process.isRunning {
            process.terminate()
        }
    }
}
