import Foundation
import HeraldSpawn
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A started service-extension process, leader of its own process group (`ChildProcess` spawns it so):
/// its standard input is a socket (writing to a process that has gone raises no SIGPIPE), its standard output
/// and error are read by a thread of its own (`OutputReader`, poll(2) and read(2)) and counted against a limit
/// and kept as a capped log, and its end (`ChildProcess`'s termination handler) opens `ended`. Nothing here blocks
/// one of Swift's cooperative threads.
final class ServiceExtensionProcess: Sendable {
    typealias Termination = ChildProcess.Termination

    /// What the handlers called on the process's and the reader's threads record.
    private final class Monitor: Sendable {
        struct State {
            var log = ServiceExtensionLog()
            var termination: Termination?
            var overflowed = false
            var openStreams = 2
        }

        let state = Mutex(State())
        let ended = AsyncLatch()
        let settled = AsyncLatch()
        let drained = AsyncLatch()
        let outputLimit: Int

        init(outputLimit: Int) {
            self.outputLimit = outputLimit
        }

        func terminated(_ termination: Termination) {
            state.withLock { $0.termination = termination }
            ended.open()
            settled.open()
        }

        /// Records a chunk of output; empty data is one stream's end of file.
        func received(_ data: Data) {
            let (overflowed, drainedNow) = state.withLock { state -> (Bool, Bool) in
                if data.isEmpty {
                    state.openStreams -= 1
                    return (false, state.openStreams == 0)
                }
                state.log.append(data)
                if state.log.byteCount > outputLimit { state.overflowed = true }
                return (state.overflowed, false)
            }
            if overflowed { settled.open() }
            if drainedNow { drained.open() }
        }
    }

    /// Also the process group's id.
    let pid: pid_t
    private let process: ChildProcess
    private let input: Int32
    private let reader: OutputReader
    private let monitor: Monitor

    private init(process: ChildProcess, input: Int32, reader: OutputReader, monitor: Monitor) {
        self.process = process
        pid = process.processIdentifier
        self.input = input
        self.reader = reader
        self.monitor = monitor
    }

    /// Starts `executable` with exactly `environment`, in `directory`.
    /// - Parameter outputLimit: the most it may print before `settled` opens and `overflowed` is true.
    /// - Throws: when the socket or pipes cannot be made or the executable cannot be started.
    /// - Parameter messageOutput: a descriptor the child gets as 3 (a content extension's messages).
    static func start(
        executable: URL, environment: [String: String], directory: URL, outputLimit: Int, messageOutput: Int32? = nil
    ) throws -> ServiceExtensionProcess {
        var sockets: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        var output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else {
            let code = errno
            sockets.forEach { close($0) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        guard pipe(&errors) == 0 else {
            let code = errno
            (sockets + output).forEach { close($0) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        // Other programs this process starts must not hold them (a write end held elsewhere delays end of file).
        for descriptor in output + errors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        // The child's ends: spawning dup2s them to 0, 1 and 2; the parent closes its copies once started.
        let childEnds = [sockets[1], output[1], errors[1]]
        defer { childEnds.forEach { close($0) } }
        let monitor = Monitor(outputLimit: outputLimit)
        let process: ChildProcess
        do {
            process = try ChildProcess.launch(
                executable.path,
                environment: environment,
                directory: directory.path,
                standardInput: childEnds[0],
                standardOutput: childEnds[1],
                standardError: childEnds[2],
                messageOutput: messageOutput,
                onTermination: { monitor.terminated($0) }
            )
        } catch {
            [sockets[0], output[0], errors[0]].forEach { close($0) }
            throw error
        }
        let reader = OutputReader(descriptors: [output[0], errors[0]]) { monitor.received($0) }
        return ServiceExtensionProcess(process: process, input: sockets[0], reader: reader, monitor: monitor)
    }

    /// Opens when the process has ended.
    var ended: AsyncLatch { monitor.ended }
    /// Opens when the process has ended or printed more than the limit.
    var settled: AsyncLatch { monitor.settled }
    /// Opens when its standard output and error are both at end of file.
    var drained: AsyncLatch { monitor.drained }

    var termination: Termination? { monitor.state.withLock { $0.termination } }
    var overflowed: Bool { monitor.state.withLock { $0.overflowed } }
    var logByteCount: Int { monitor.state.withLock { $0.log.byteCount } }
    var log: String { monitor.state.withLock { $0.log.text } }

    /// Writes `data` to the process's standard input without waiting; false if it could not all be written
    /// (the process has gone, or stopped reading with the socket's buffer full).
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.send(input, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// SIGKILL to the whole process group: the process and whatever it started that stayed in its group.
    func killGroup() {
        kill(-pid, SIGKILL)
    }

    /// Stops reading its output (a descendant that left the group may hold it open) and closes its input.
    func finish() {
        reader.stop()
        close(input)
    }
}
