package import Foundation
package import HeraldSpawn
import Synchronization
package import UserNotifications
package import UserNotificationsUI

#if canImport(Glibc)
import Glibc
#endif

/// A content extension running while one notification is expanded: started with the notification, it has
/// `startBudget` to draw its first view; then the host sends it the person's actions, clicks and media taps and reads
/// each view it draws, until ``close()``. A process of its own (the service extension's machinery: its own process
/// group, a socket for input, its output and errors kept as a capped log), with a pipe as descriptor 3 for its
/// messages (docs/content-extensions.md).
package final class HostedContentExtension: Sendable {
    /// Why the extension's view cannot be shown: the host shows the default one and says this.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var reason: String
        /// What the extension printed.
        package var log: String

        package var description: String { reason }
    }

    /// Everything the extension sent up to and including its first view.
    package let opening: [ContentExtensionWire.Output]
    /// What it sends after that, until it ends.
    package let outputs: AsyncStream<ContentExtensionWire.Output>
    private let process: ServiceExtensionProcess
    private let messages: OutputReader

    private init(
        opening: [ContentExtensionWire.Output], outputs: AsyncStream<ContentExtensionWire.Output>, process: ServiceExtensionProcess,
        messages: OutputReader
    ) {
        self.opening = opening
        self.outputs = outputs
        self.process = process
        self.messages = messages
    }

    /// The view the extension drew first.
    package var firstView: ViewSnapshot? { opening.last?.view }

    /// What it printed so far.
    package var log: String { process.log }

    /// The environment an app's content extension runs with: its bundle id and the device's data dir.
    package static func environment(bundleID: String, dataDirectory: URL) -> [String: String] {
        ["HERALD_BUNDLE_ID": bundleID, "HERALD_DATA_DIR": dataDirectory.path, "PATH": "/usr/bin:/bin"]
    }

    /// Starts `executable` for `notification` and waits for its first view.
    ///
    /// - Parameters:
    ///   - environment: the extension's whole environment; `HERALD_CONTENT_EXTENSION_FD` is added.
    ///   - directory: its working directory.
    ///   - startBudget: how long it may take from start to its first view (process start included).
    /// - Throws: ``Failure`` when it cannot start, ends, or draws nothing within the budget; it is then killed.
    package static func start(
        executable: URL, notification: NotificationRecord, environment: [String: String], directory: URL,
        startBudget: Duration = .seconds(2), outputLimit: Int = 4 << 20
    ) async throws(Failure) -> HostedContentExtension {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            throw Failure(reason: "cannot make a pipe for the extension: \(String(cString: strerror(errno)))", log: "")
        }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        let (outputs, continuation) = AsyncStream.makeStream(of: ContentExtensionWire.Output.self)
        let lines = LineSplitter { line in
            if let output = try? JSONDecoder().decode(ContentExtensionWire.Output.self, from: line) { continuation.yield(output) }
        }
        let process: ServiceExtensionProcess
        do {
            var environment = environment
            environment[ContentExtensionWire.outputDescriptorVariable] = "3"
            process = try ServiceExtensionProcess.start(
                executable: executable, environment: environment, directory: directory, outputLimit: outputLimit, messageOutput: pipeEnds[1])
        } catch {
            pipeEnds.forEach { _ = Glibc.close($0) }
            throw Failure(reason: "the content extension \(executable.lastPathComponent) cannot be started: \(error)", log: "")
        }
        Glibc.close(pipeEnds[1])
        let messages = OutputReader(descriptors: [pipeEnds[0]]) { chunk in
            if chunk.isEmpty { continuation.finish() } else { lines.append(chunk) }
        }
        // An extension that has already gone fails the send; what follows says why.
        if let line = try? JSONEncoder().encode(ContentExtensionWire.Input(notification: notification)) {
            _ = process.send(line + Data("\n".utf8))
        }

        // The first view, the end of its messages, or the budget: whichever comes first.
        enum Start: Sendable {
            case drew([ContentExtensionWire.Output])
            case closed
            case timedOut
        }
        let deadline = ContinuousClock.now + startBudget
        let start = await withTaskGroup(of: Start.self) { group in
            group.addTask {
                var received: [ContentExtensionWire.Output] = []
                for await output in outputs {
                    received.append(output)
                    if output.view != nil { return .drew(received) }
                }
                return .closed
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return .timedOut
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
        guard case .drew(let opening) = start else {
            if case .timedOut = start { process.killGroup() }
            // Its end and the rest of its log, briefly, for the reason.
            _ = await process.ended.wait(until: .now + .seconds(1))
            _ = await process.drained.wait(until: .now + .milliseconds(500))
            end(process, messages)
            let reason =
                if case .timedOut = start {
                    "the content extension drew no view within \(startBudget)"
                } else {
                    "the content extension \(process.termination.map { "\($0)" } ?? "closed its messages") before it drew a view"
                }
            throw Failure(reason: reason, log: process.log)
        }
        return HostedContentExtension(opening: opening, outputs: outputs, process: process, messages: messages)
    }

    /// Sends one input; false when the extension has gone.
    @discardableResult
    package func send(_ input: ContentExtensionWire.Input) -> Bool {
        guard let line = try? JSONEncoder().encode(input) else { return false }
        return process.send(line + Data("\n".utf8))
    }

    /// How the process ended; nil while it runs.
    package var termination: ChildProcess.Termination? { process.termination }

    /// How the process ended, waiting up to `limit` for it (its output can close just before it is reaped).
    package func termination(within limit: Duration) async -> ChildProcess.Termination? {
        _ = await process.ended.wait(until: .now + limit)
        return process.termination
    }

    /// Closes its input (the interface closed), gives it `grace` to end, then kills its process group.
    package func close(grace: Duration = .seconds(1)) async {
        process.finish()
        if !(await process.ended.wait(until: .now + grace)) { process.killGroup() }
        _ = await process.ended.wait(until: .now + .seconds(5))
        messages.stop()
    }

    private static func end(_ process: ServiceExtensionProcess, _ messages: OutputReader) {
        process.killGroup()
        process.finish()
        messages.stop()
    }
}

/// Splits chunks of bytes into lines (without their newlines) and hands each on.
private final class LineSplitter: Sendable {
    private let buffer = Mutex(Data())
    private let line: @Sendable (Data) -> Void

    init(line: @escaping @Sendable (Data) -> Void) {
        self.line = line
    }

    func append(_ chunk: Data) {
        let complete = buffer.withLock { buffer -> [Data] in
            buffer.append(chunk)
            var lines: [Data] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(Data(buffer[buffer.startIndex..<newline]))
                buffer = Data(buffer[buffer.index(after: newline)...])
            }
            return lines
        }
        complete.forEach(line)
    }
}
