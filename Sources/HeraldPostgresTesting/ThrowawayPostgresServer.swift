import Foundation
import HeraldSpawn
import HeraldTesting

/// A PostgreSQL server of a test's own (`scripts/postgres-test-server.sh`), which it may stop and start again: the
/// shared test server must stay up for the other tests.
public struct ThrowawayPostgresServer: Sendable {
    public let directory: String
    /// The maintenance URL (`…/postgres`).
    public let url: String

    private static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("scripts/postgres-test-server.sh").path
    }()

    public static func start() async throws -> ThrowawayPostgresServer {
        let directory = TemporaryPath.make("herald-postgres-server")
        try await run("start", directory)
        let url = try String(contentsOfFile: directory + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return ThrowawayPostgresServer(directory: directory, url: url)
    }

    /// Stops the server (`pg_ctl stop -m fast`: sessions are ended), keeping its data.
    public func halt() async throws { try await Self.run("halt", directory) }

    /// Starts the halted server again, on the same port.
    public func resume() async throws { try await Self.run("resume", directory) }

    /// Stops the server and removes its files.
    public func stop() async throws { try await Self.run("stop", directory) }

    private static func run(_ command: String, _ directory: String) async throws {
        let log = directory + "-\(command).log"
        guard FileManager.default.createFile(atPath: log, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        let process = try ChildProcess.launch(
            "/bin/bash", arguments: [script, command, directory], standardInput: ChildProcess.nullDevice,
            standardOutput: output.fileDescriptor, standardError: output.fileDescriptor)
        try output.close()
        let termination = await process.terminated()
        guard termination.status == 0 else {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ScriptFailure(description: "postgres-test-server.sh \(command) \(termination): \(said)")
        }
    }

    private struct ScriptFailure: Error, CustomStringConvertible {
        var description: String
    }
}
