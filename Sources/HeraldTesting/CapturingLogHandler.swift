import Foundation
public import Logging

/// A log handler that keeps every line, so tests can check what the gateway logs (and what it never does).
public final class LogCapture: Sendable {
    private let lines = Watched<[String]>([])

    public init() {}

    /// A logger at trace level that records into this capture.
    public func logger(label: String = "herald-test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    public var text: String { lines.value.joined(separator: "\n") }

    /// Waits until a line containing `text` is logged, at most 10 s; whether one was.
    @discardableResult
    public func wait(forLineContaining text: String) async -> Bool {
        await lines.wait { $0.contains { $0.contains(text) } }
    }

    fileprivate func append(_ line: String) {
        lines.update { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.level) \(event.message) \(merged.map { "\($0)=\($1)" }.sorted().joined(separator: " "))")
        }
    }
}
