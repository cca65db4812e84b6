import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An extension process that talks in lines of JSON: the host writes `Input`s to its standard input; it writes
/// `Output`s to a pipe it finds as descriptor 3 (named to it by an environment variable), so that what it prints stays
/// its log. The machinery under content and widget extensions (docs/content-extensions.md, docs/live-activities.md).
final class PipedExtensionProcess<Output: Decodable & Sendable>: Sendable {
    /// What it sends, decoded, until its pipe closes (lines that are not an `Output` are skipped).
    let outputs: AsyncStream<Output>
    let process: ServiceExtensionProcess
    private let messages: OutputReader

    private init(outputs: AsyncStream<Output>, process: ServiceExtensionProcess, messages: OutputReader) {
        self.outputs = outputs
        self.process = process
        self.messages = messages
    }

    /// Starts `executable` with `environment` plus `descriptorVariable=3`, in `directory`.
    ///
    /// - Parameter what: the extension as the failure's reason names it ("the content extension").
    /// - Throws: ``ExtensionFailure`` when the pipe cannot be made or the executable cannot be started.
    static func start(
        _ what: String, executable: URL, environment: [String: String], descriptorVariable: String, directory: URL, outputLimit: Int
    ) throws(ExtensionFailure) -> PipedExtensionProcess {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            throw ExtensionFailure(reason: "cannot make a pipe for \(what): \(String(cString: strerror(errno)))", log: "")
        }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        let (outputs, continuation) = AsyncStream.makeStream(of: Output.self)
        let lines = LineSplitter { line in
            if let output = try? JSONDecoder().decode(Output.self, from: line) { continuation.yield(output) }
        }
        let process: ServiceExtensionProcess
        do {
            var environment = environment
            environment[descriptorVariable] = "3"
            process = try ServiceExtensionProcess.start(
                executable: executable, environment: environment, directory: directory, outputLimit: outputLimit, messageOutput: pipeEnds[1])
        } catch {
            pipeEnds.forEach { _ = Glibc.close($0) }
            throw ExtensionFailure(reason: "\(what) \(executable.lastPathComponent) cannot be started: \(error)", log: "")
        }
        Glibc.close(pipeEnds[1])
        let messages = OutputReader(descriptors: [pipeEnds[0]]) { chunk in
            if chunk.isEmpty { continuation.finish() } else { lines.append(chunk) }
        }
        return PipedExtensionProcess(outputs: outputs, process: process, messages: messages)
    }

    /// Writes one input line; false when the extension has gone.
    @discardableResult
    func send(_ input: some Encodable) -> Bool {
        guard let line = try? JSONEncoder().encode(input) else { return false }
        return process.send(line + Data("\n".utf8))
    }

    /// Closes its input, gives it `grace` to end, then kills its process group.
    func close(grace: Duration = .seconds(1)) async {
        process.finish()
        if !(await process.ended.wait(until: .now + grace)) { process.killGroup() }
        _ = await process.ended.wait(until: .now + .seconds(5))
        messages.stop()
    }

    /// Ends it for good: kills its process group now (or first gives it a second to end by itself), waits briefly for
    /// the rest of its log, and stops reading.
    func end(killingAtOnce: Bool) async {
        if killingAtOnce { process.killGroup() }
        _ = await process.ended.wait(until: .now + .seconds(1))
        _ = await process.drained.wait(until: .now + .milliseconds(500))
        process.killGroup()
        process.finish()
        messages.stop()
    }
}

/// Why an extension's view cannot be shown: the host shows its default and says this.
package struct ExtensionFailure: Error, Sendable, CustomStringConvertible {
    package var reason: String
    /// What the extension printed.
    package var log: String

    package var description: String { reason }
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
