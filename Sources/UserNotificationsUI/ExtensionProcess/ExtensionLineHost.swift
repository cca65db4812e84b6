import Foundation
import UserNotifications

#if canImport(Glibc)
import Glibc
#endif

/// The process around a content or widget extension: a thread reads the daemon's lines from standard input and hands
/// each, decoded, to the main thread, where the extension runs; what it sends is written a line each to the
/// descriptor the daemon names in an environment variable (its pipe), or printed when that is not set. The end of
/// standard input (the daemon closed it) ends the process with status 0; a line that is not an `Input` with status 2.
package enum ExtensionLineHost {
    /// A handler of inputs, made on the first input with the function that sends an output.
    package typealias Start<Input> = @Sendable @MainActor (_ send: @escaping @MainActor (any Encodable) -> Void) -> @MainActor (Input) -> Void

    @MainActor private static var handler: (@MainActor (Data) -> Void)?

    /// Runs the process; never returns.
    ///
    /// - Parameters:
    ///   - outputDescriptorVariable: the environment variable naming the descriptor for outputs.
    ///   - wrongInput: what to say on standard error when a line is not an `Input`.
    package static func run<Input: Decodable & Sendable>(
        _ input: Input.Type, outputDescriptorVariable: String, wrongInput: String, start: @escaping Start<Input>
    ) -> Never {
        let descriptor = ProcessInfo.processInfo.environment[outputDescriptorVariable].flatMap { Int32($0) }
        let writer = descriptor.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } ?? FileHandle.standardOutput
        let reader = Thread {
            for line in StandardInputLines() where !line.isEmpty {
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        let current = handler ?? lineHandler(Input.self, wrongInput: wrongInput, start(send(to: writer)))
                        handler = current
                        current(line)
                    }
                }
            }
            DispatchQueue.main.async {
                fflush(nil)
                exit(0)
            }
        }
        reader.name = "extension-input"
        reader.start()
        while true { RunLoop.main.run() }
    }

    /// Decodes each line and hands it on; a line that is not an `Input` ends the process.
    @MainActor private static func lineHandler<Input: Decodable>(
        _ input: Input.Type, wrongInput: String, _ handle: @escaping @MainActor (Input) -> Void
    ) -> @MainActor (Data) -> Void {
        { line in
            guard let decoded = try? JSONDecoder().decode(Input.self, from: line) else { fail(wrongInput) }
            handle(decoded)
        }
    }

    /// Writes each message as a line to `writer`.
    private static func send(to writer: FileHandle) -> @MainActor (any Encodable) -> Void {
        { message in
            guard let data = try? JSONEncoder().encode(message) else { return }
            fflush(nil)  // what the extension printed comes first, when both go to standard output
            writer.write(data + Data("\n".utf8))
        }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        fflush(nil)
        _exit(2)
    }
}
