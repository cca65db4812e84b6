import CSpawn
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program started with posix_spawn(3), in a process group of its own, with only the descriptors given
/// for its standard input, output and error, no signal blocked and every signal's default disposition.
///
/// It stands in for Foundation's `Process`, whose `run()` on Linux (Swift 6.3) copies 256 bytes out of each
/// `/proc/self/fd` entry and crashes when one sits at the end of a mapped page
/// (swiftlang/swift-corelibs-foundation#5472). A thread of its own waits for the end, so nothing blocks one of
/// Swift's cooperative threads.
package final class ChildProcess: Sendable {
    /// How the process ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        /// The exit code, or the signal's number (as Foundation's `terminationStatus` gave).
        package var status: Int32 {
            switch self {
            case .exited(let code), .signaled(let code): code
            }
        }

        /// "exited with status 3", "crashed (signal 11, SIGSEGV)".
        package var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(let signal): "crashed (signal \(signal)\(Self.signalName(signal)))"
            }
        }

        private static func signalName(_ signal: Int32) -> String {
            let names: [Int32: String] = [
                SIGABRT: "SIGABRT", SIGSEGV: "SIGSEGV", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
                SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM",
            ]
            return names[signal].map { ", \($0)" } ?? ""
        }
    }

    private struct State {
        /// The process has ended (it may not be reaped yet): no signal may be sent, its id may be reused.
        var ended = false
        var termination: Termination?
        var waiters: [CheckedContinuation<Termination, Never>] = []
    }

    /// `/dev/null`, open for reading and writing, to give a child as a standard stream (opened once, kept open).
    package static let nullDevice: Int32 = open("/dev/null", O_RDWR | O_CLOEXEC)

    package let processIdentifier: Int32
    private let state = Mutex(State())
    private let onTermination: (@Sendable (Termination) -> Void)?

    private init(processIdentifier: Int32, onTermination: (@Sendable (Termination) -> Void)?) {
        self.processIdentifier = processIdentifier
        self.onTermination = onTermination
    }

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - environment: exactly this environment; nil passes this process's on.
    ///   - directory: the working directory; nil keeps this process's.
    ///   - standardInput: the descriptor the child gets as 0; nil passes this process's on (likewise 1 and 2).
    ///   - onTermination: called on the waiting thread once the process has ended.
    /// - Throws: `POSIXError` when it cannot be started (no such file, not executable, no such directory).
    package static func launch(
        _ executable: String,
        arguments: [String] = [],
        environment: [String: String]? = nil,
        directory: String? = nil,
        standardInput: Int32? = nil,
        standardOutput: Int32? = nil,
        standardError: Int32? = nil,
        messageOutput: Int32? = nil,
        onTermination: (@Sendable (Termination) -> Void)? = nil
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        // `messageOutput` becomes descriptor 3: a channel of its own for a child whose standard output is its log.
        for (descriptor, target) in [(standardInput, 0), (standardOutput, 1), (standardError, 2), (messageOutput, 3)] {
            if let descriptor { try check(posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target))) }
        }
        try check(cspawn_addclosefrom(&actions, messageOutput == nil ? 3 : 4))
        if let directory { try check(cspawn_addchdir(&actions, directory)) }

        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        // The thread that spawns (one of Swift's or Dispatch's workers) blocks SIGTERM, SIGINT, SIGHUP and more, and a
        // child inherits that mask and any ignored signals: it starts with none blocked and every disposition default,
        // so that kill and Ctrl-C stop it as they stop any program.
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        try check(posix_spawnattr_setsigmask(&attributes, &noSignals))
        try check(posix_spawnattr_setsigdefault(&attributes, &allSignals))
        try check(
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)))

        let environment = environment ?? ProcessInfo.processInfo.environment
        var pid: pid_t = 0
        let result = withCStrings([executable] + arguments) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
                posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            }
        }
        try check(result)
        let child = ChildProcess(processIdentifier: pid, onTermination: onTermination)
        Thread { child.waitForEnd() }.start()
        return child
    }

    /// Whether it runs still (false once `termination` is known).
    package var isRunning: Bool { termination == nil }

    /// How it ended; nil while it runs.
    package var termination: Termination? { state.withLock { $0.termination } }

    /// Sends `signal` unless the process has ended (its id may belong to another process by then).
    package func send(_ signal: Int32) {
        state.withLock { state in
            if !state.ended { kill(processIdentifier, signal) }
        }
    }

    /// SIGTERM.
    package func terminate() {
        send(SIGTERM)
    }

    /// Waits for the end.
    package func terminated() async -> Termination {
        await withCheckedContinuation { continuation in
            let ended: Termination? = state.withLock { state in
                guard let termination = state.termination else {
                    state.waiters.append(continuation)
                    return nil
                }
                return termination
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// Waits for the exit without reaping, marks the process ended (so no signal can reach a reused id), then reaps it.
    private func waitForEnd() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        state.withLock { $0.ended = true }
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0 && errno == EINTR {}
        // The <sys/wait.h> macros: the low 7 bits are the signal (0 when it exited), the next 8 the exit code.
        let termination: Termination = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
        let waiters = state.withLock { state in
            state.termination = termination
            defer { state.waiters = [] }
            return state.waiters
        }
        onTermination?(termination)
        for waiter in waiters { waiter.resume(returning: termination) }
    }

    private static func check(_ result: Int32) throws {
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
    }
}

/// Calls `body` with a NULL-terminated array of C strings, valid only during the call.
private func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
