import Foundation
import HeraldDevice
import HeraldSpawn
import HeraldTesting
import UserNotifications

#if canImport(Glibc)
import Glibc
#endif

/// A data directory with an app's attachment store, where service extensions built by this package run.
struct ExtensionHarness: Sendable {
    static let app = "com.example.podcast"

    let directory: TemporaryDirectory
    let store: AttachmentStore

    init() throws {
        directory = try TemporaryDirectory()
        store = AttachmentStore(
            directory: directory.url.appendingPathComponent("attachments").appendingPathComponent(Self.app),
            bundleDirectory: directory.url.appendingPathComponent("Podcast.app"))
    }

    var dataDirectory: URL { directory.url }

    /// A product of this package in `.build/debug`.
    static func built(_ name: String) -> URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent(".build/debug/\(name)")
    }

    static let testExtension = built("herald-test-service-extension")

    /// A remote notification's request ("Episode 12" / "Out now", identifier `push-1`) asking the test extension
    /// for `mode`.
    static func request(
        mode: String? = nil, title: String = "Episode 12", body: String = "Out now",
        userInfo: [String: Any] = [:]
    ) throws -> RequestRecord {
        let content = UNMutableNotificationContent()
        content.title = title
        content.body = body
        var info = userInfo
        info["aps"] = ["alert": ["title": title, "body": body], "mutable-content": 1]
        if let mode { info["mode"] = mode }
        content.userInfo = info
        return try RequestRecord(UNNotificationRequest(identifier: "push-1", content: content, trigger: UNPushNotificationTrigger()))
    }

    /// A request made as the device daemon makes one of an APNs payload: alert title and body, userInfo the payload.
    static func request(payload json: Data) throws -> RequestRecord {
        guard let payload = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        let alert = (payload["aps"] as? [String: Any])?["alert"] as? [String: Any] ?? [:]
        let content = UNMutableNotificationContent()
        content.title = alert["title"] as? String ?? ""
        content.body = alert["body"] as? String ?? ""
        content.userInfo = payload
        return try RequestRecord(UNNotificationRequest(identifier: "push-1", content: content, trigger: UNPushNotificationTrigger()))
    }

    /// Time enough for any extension that calls its handler, even on a loaded machine (a crash's backtrace takes
    /// seconds), so only the tests about expiry, which run with `expiring`, see expiry.
    static let patient = ServiceExtensionRunner(budget: .seconds(30), grace: .seconds(5))
    /// Expiry after 1 s, then 1 s of grace (`expiringWithGrace` for a best attempt: 10 s).
    static let expiring = ServiceExtensionRunner(budget: .seconds(1), grace: .seconds(1))
    static let expiringWithGrace = ServiceExtensionRunner(budget: .seconds(1), grace: .seconds(10))

    /// Runs `executable` for `request` with the app's data directory and bundle identifier in its environment.
    func run(
        _ request: RequestRecord, runner: ServiceExtensionRunner = ExtensionHarness.patient,
        executable: URL = ExtensionHarness.testExtension, environment: [String: String] = [:]
    ) async -> ServiceExtensionOutcome {
        await runner.run(
            executable: executable, request: request,
            environment: ["HERALD_DATA_DIR": dataDirectory.path, "HERALD_BUNDLE_ID": Self.app].merging(environment) { $1 },
            attachments: store)
    }

    /// Runs `executable` to its end, its standard input read from `input` and its output going to files (no
    /// thread waits on a pipe).
    func runToEnd(
        _ executable: URL, _ arguments: [String] = [], input: Data = Data(),
        environment: [String: String]
    ) async throws -> (status: Int32, output: Data, error: String) {
        let base = dataDirectory.appendingPathComponent("process-\(UUID().uuidString)")
        let (inputFile, output, error) = (base.appendingPathExtension("in"), base.appendingPathExtension("out"), base.appendingPathExtension("err"))
        try input.write(to: inputFile)
        for file in [output, error] { try Data().write(to: file) }
        let files = [try FileHandle(forReadingFrom: inputFile), try FileHandle(forWritingTo: output), try FileHandle(forWritingTo: error)]
        defer { for file in files { try? file.close() } }
        let process = try ChildProcess.launch(
            executable.path,
            arguments: arguments,
            environment: environment,
            standardInput: files[0].fileDescriptor,
            standardOutput: files[1].fileDescriptor,
            standardError: files[2].fileDescriptor
        )
        return (await process.terminated().status, try Data(contentsOf: output), try String(contentsOf: error, encoding: .utf8))
    }

    /// The runners' private directories still beside the attachment store.
    var leftoverWorkspaces: [String] {
        let parent = store.directory.deletingLastPathComponent()
        return ((try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []).filter { $0.hasPrefix(".service-extension-") }
    }

    var storedFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.directory.path)) ?? []
    }

    /// The process ids the test extension printed ("pid N", "child N").
    static func processIDs(in log: String) -> [pid_t] {
        log.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 2, ["pid", "child"].contains(words[0]) else { return nil }
            return pid_t(words[1])
        }
    }

    /// True while `pid` is a live process (a zombie counts as gone).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    /// Waits (a little, for the kernel to finish a SIGKILL) until none of `pids` is running; false if one still is.
    static func allEnded(_ pids: [pid_t]) async -> Bool {
        for _ in 0..<200 {
            if !pids.contains(where: isRunning) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
