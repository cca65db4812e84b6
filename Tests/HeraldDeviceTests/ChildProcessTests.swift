import Foundation
import HeraldSpawn
import HeraldTesting
import Synchronization
import Testing

@testable import HeraldDevice
@testable import UserNotifications

#if canImport(Glibc)
import Glibc
#endif

@Suite struct ChildProcessTests {
    private func scratchFile() -> String {
        let path = NSTemporaryDirectory() + "child-process-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        return path
    }

    @Test func runsWithTheGivenEnvironmentDirectoryAndOutputAndReportsTheExitCode() async throws {
        let outputPath = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = try ChildProcess.launch(
            "/bin/sh",
            arguments: ["-c", "echo \"$GREETING\"; pwd; exit 3"],
            environment: ["GREETING": "hello from the child"],
            directory: "/usr",
            standardOutput: output.fileDescriptor
        )
        try output.close()
        #expect(await process.terminated() == .exited(3))
        #expect(!process.isRunning)
        #expect(try String(contentsOfFile: outputPath, encoding: .utf8) == "hello from the child\n/usr\n")
    }

    @Test func aSignalEndsItAndNothingIsSentOnceItEnded() async throws {
        let process = try ChildProcess.launch("/bin/sleep", arguments: ["30"])
        // Leader of its own process group, so a group kill reaches what it started and nothing else.
        let stat = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
        let group = stat.split(separator: ")").last?.split(separator: " ").dropFirst(2).first
        #expect(group.map(String.init) == String(process.processIdentifier), "\(stat)")
        #expect(process.isRunning)
        process.send(SIGKILL)
        #expect(await process.terminated() == .signaled(SIGKILL))
        process.terminate()  // ended: a no-op, never a signal to whatever has the id now
        #expect(process.termination == .signaled(SIGKILL))
    }

    @Test func onlyTheStandardDescriptorsAreInherited() async throws {
        let path = scratchFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let open = Glibc.open(path, O_RDONLY)  // without O_CLOEXEC: exec alone would pass it on
        #expect(open > 2)
        defer { close(open) }
        let process = try ChildProcess.launch("/bin/sh", arguments: ["-c", "[ -e /proc/self/fd/\(open) ]"])
        #expect(await process.terminated() == .exited(1))
    }

    @Test func terminationIsReportedToTheHandler() async throws {
        let reported = AsyncLatch()
        let seen = Mutex<ChildProcess.Termination?>(nil)
        let process = try ChildProcess.launch("/bin/sh", arguments: ["-c", "exit 7"]) { termination in
            seen.withLock { $0 = termination }
            reported.open()
        }
        #expect(await reported.wait(until: .now + .seconds(20)))
        #expect(seen.withLock { $0 } == .exited(7))
        #expect(await process.terminated() == .exited(7))
    }

    @Test func aMissingExecutableOrDirectoryIsAnError() {
        #expect(throws: POSIXError(.ENOENT)) {
            try ChildProcess.launch("/nonexistent/program")
        }
        #expect(throws: POSIXError(.ENOENT)) {
            try ChildProcess.launch("/bin/true", directory: "/nonexistent/directory")
        }
    }
}
