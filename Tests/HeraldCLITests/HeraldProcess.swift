import Foundation
import HeraldDevice
import HeraldSpawn
import HeraldTesting

/// The built `herald` binary as a child process, its output going to files. Every wait polls with
/// `Task.sleep`: a test that blocked a thread of Swift's cooperative pool on a pipe could starve the
/// in-process gateway its child is talking to, and with two cores two such tests deadlock the run.
final class HeraldProcess: Sendable {
    static let binary = built("herald")

    /// A product of this package in `.build/debug`.
    static func built(_ name: String) -> URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent(".build/debug/\(name)")
    }

    let process: ChildProcess
    private let outputPath: String
    private let errorPath: String

    private init(process: ChildProcess, outputPath: String, errorPath: String) {
        self.process = process
        self.outputPath = outputPath
        self.errorPath = errorPath
    }

    /// A test that fails part-way never reaches its `terminate()`; its child must not outlive it.
    deinit {
        process.send(SIGKILL)
    }

    /// Starts `herald ARGUMENTS` (or another `executable`), writing `input` (if any) to its standard input and
    /// closing it; `environment` is added to this process's.
    static func start(
        _ arguments: [String], input: String? = nil, executable: URL = binary, environment: [String: String] = [:]
    ) throws -> HeraldProcess {
        let outputPath = TemporaryPath.make("herald-process", suffix: ".out")
        let errorPath = TemporaryPath.make("herald-process", suffix: ".err")
        for path in [outputPath, errorPath] {
            guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        let stdin = Pipe()
        let process = try ChildProcess.launch(
            executable.path,
            arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            standardInput: stdin.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileDescriptor,
            standardError: error.fileDescriptor
        )
        // The child has its own copies; this process reads the files by path.
        try output.close()
        try error.close()
        try stdin.fileHandleForReading.close()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        return HeraldProcess(process: process, outputPath: outputPath, errorPath: errorPath)
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var errorOutput: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits until standard output contains `text`; false if it does not within `timeout` or the process ends first.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(20)) async -> Bool {
        await wait(until: { $0.output.contains(text) }, timeout: timeout)
    }

    /// Waits until `condition` holds of the process, its output read afresh each time.
    func waitForOutput(timeout: Duration = .seconds(20), until condition: (HeraldProcess) -> Bool) async -> Bool {
        await wait(until: condition, timeout: timeout)
    }

    /// Like ``waitForOutput(containing:timeout:)``, for standard error (where logs go).
    func waitForErrorOutput(containing text: String, timeout: Duration = .seconds(20)) async -> Bool {
        await wait(until: { $0.errorOutput.contains(text) }, timeout: timeout)
    }

    private func wait(until condition: (HeraldProcess) -> Bool, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            if !process.isRunning { return condition(self) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Waits for the process to end and returns its exit status (the signal's number if a signal ended it).
    func exitStatus() async -> Int32 {
        await process.terminated().status
    }

    /// SIGTERM.
    func terminate() {
        process.terminate()
    }
}
