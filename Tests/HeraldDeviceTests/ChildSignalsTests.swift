import Foundation
import HeraldSpawn
import HeraldTesting
import Testing

@testable import HeraldDevice

#if canImport(Glibc)
import Glibc
#endif

/// Every program the daemon starts (apps, service extensions, content extensions, xdg-open) is started from one of
/// Swift's or Dispatch's worker threads, which block SIGTERM, SIGINT, SIGHUP and SIGQUIT. A child must not inherit
/// that mask, nor a signal the daemon ignores: `kill` and Ctrl-C stop it as they stop any program.
@Suite struct ChildSignalsTests {
    /// Runs `body` on this thread with the signals a worker thread blocks blocked, and SIGUSR2 ignored in this process,
    /// as the daemon's thread would start a child; both are put back afterwards.
    private func asAWorkerThread<T>(_ body: () throws -> T) rethrows -> T {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT] { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let disposition = signal(SIGUSR2, SIG_IGN)
        defer {
            signal(SIGUSR2, disposition)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try body()
    }

    /// The standard signals (1 to 31) a process blocks and ignores, from `/proc/PID/status` (bit N-1 is signal N).
    /// glibc's posix_spawn always leaves its own two real-time signals (32 and 33, for thread cancellation and setxid)
    /// ignored in the child; the program's glibc takes them back at start.
    private func signalSets(of pid: Int32) throws -> (blocked: UInt64, ignored: UInt64) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> UInt64 {
            let hex = status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map {
                $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
            }
            return (hex.flatMap { UInt64($0, radix: 16) } ?? .max) & 0x7FFF_FFFF
        }
        return (field("SigBlk"), field("SigIgn"))
    }

    private static let none: UInt64 = 0

    /// A shell script that sleeps; `exec` so the process SIGTERM reaches is the sleep itself.
    /// A script that sleeps, written through a close-on-exec descriptor: a process another test forks meanwhile does not
    /// keep the file open for writing, which would make starting it fail with ETXTBSY ("Text file busy").
    private func sleeper() throws -> URL {
        let script = URL(fileURLWithPath: TemporaryPath.make("sleeper", suffix: ".sh"))
        let descriptor = open(script.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let text = Array("#!/bin/sh\nexec sleep 60\n".utf8)
        guard write(descriptor, text, text.count) == text.count else { throw POSIXError(.EIO) }
        return script
    }

    @Test func aChildStartsWithNoSignalBlockedOrIgnoredAndEndsOnSIGTERM() async throws {
        let process = try asAWorkerThread { try ChildProcess.launch("/bin/sleep", arguments: ["60"]) }
        let sets = try signalSets(of: process.processIdentifier)
        #expect(sets.blocked == Self.none)
        #expect(sets.ignored == Self.none)
        process.terminate()
        #expect(await process.terminated() == .signaled(SIGTERM))
    }

    @Test func anAppTheDaemonLaunchesEndsOnSIGTERM() async throws {
        let directory = try TemporaryDirectory()
        let bundle = directory.url.appendingPathComponent("Sleeper.app", isDirectory: true)
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let app = AppManifest(bundleIdentifier: "com.example.sleeper", bundleDirectory: bundle, executable: try sleeper())
        let launcher = AppLauncher(dataDirectory: directory.url)
        let process = try #require(try asAWorkerThread { try launcher.launch(app, reason: "response") })
        #expect(try signalSets(of: process.processIdentifier).blocked == Self.none)
        kill(process.processIdentifier, SIGTERM)
        #expect(await process.terminated() == .signaled(SIGTERM))
    }

    @Test(arguments: [false, true])
    func anExtensionEndsOnSIGTERM(content: Bool) async throws {
        // A content extension is started as a service extension is, with a descriptor for its messages.
        var messages: [Int32] = [-1, -1]
        #expect(pipe(&messages) == 0)
        defer { messages.forEach { close($0) } }
        let process = try asAWorkerThread {
            try ServiceExtensionProcess.start(
                executable: try sleeper(), environment: [:], directory: URL(fileURLWithPath: NSTemporaryDirectory()), outputLimit: 1024,
                messageOutput: content ? messages[1] : nil)
        }
        #expect(try signalSets(of: process.pid).blocked == Self.none)
        kill(process.pid, SIGTERM)
        #expect(await process.ended.wait(until: .now + .seconds(30)))
        #expect(process.termination == .signaled(SIGTERM))
    }
}
