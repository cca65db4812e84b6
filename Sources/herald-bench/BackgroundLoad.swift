import Foundation
import HeraldDevice
import HeraldSpawn
import UserNotifications

/// h2load (nghttp2's C load generator) as a subprocess sending the bulk of a load at a fixed rate, so that on a
/// small machine the load generator costs the gateway as little CPU as possible while herald-bench times probes.
struct BackgroundLoad {
    private let process: ChildProcess
    private let scratch: URL

    /// Starts `rate` notifications/s for `seconds` to `tokens` (round-robin), over `connections` connections.
    init(h2load: String, provider: ProviderOptions, tokens: [String], rate: Int, seconds: Int, connections: Int = 4) throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("herald-h2load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let uris = scratch.appendingPathComponent("uris"), payload = scratch.appendingPathComponent("payload.json")
        let base = provider.provider.hasSuffix("/") ? String(provider.provider.dropLast()) : provider.provider
        try tokens.map { "\(base)/3/device/\($0)" }.joined(separator: "\n").write(to: uris, atomically: true, encoding: .utf8)
        try Data(#"{"aps":{"alert":{"title":"Background","body":"load"}}}"#.utf8).write(to: payload)
        let arguments = [
            "-c", String(connections), "-m", "100", "-t", "1", "-D", String(seconds),
            "--rps", String(max(1, rate / connections)), "-d", payload.path, "-i", uris.path,
            "-H", "authorization: bearer \(provider.jwt)", "-H", "apns-topic: \(provider.topic)", "-H", "apns-push-type: alert",
        ]
        let output = scratch.appendingPathComponent("out")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else { throw BenchError("cannot write \(output.path)") }
        let outputFile = try FileHandle(forWritingTo: output)
        defer { try? outputFile.close() }
        process = try ChildProcess.launch(
            h2load,
            arguments: arguments,
            standardOutput: outputFile.fileDescriptor,
            standardError: ChildProcess.nullDevice
        )
    }

    /// Waits for h2load to finish; returns its summary lines (requests, status codes).
    func finish() async -> String {
        _ = await process.terminated()
        let output = (try? String(contentsOf: scratch.appendingPathComponent("out"), encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: scratch)
        return output.split(separator: "\n").filter { $0.hasPrefix("requests:") || $0.hasPrefix("status codes:") }.joined(separator: "; ")
    }
}
