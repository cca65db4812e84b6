import Foundation
import HeraldDevice
import UserNotifications

/// The terminal presenter's answer line: a person at the daemon's terminal types `ID` (open), `ID dismiss`, or
/// `ID ACTION [reply text…]`, as `herald device respond` would send it.
struct TerminalResponder: Sendable {
    let daemon: DeviceDaemon
    let printer: DevicePrinter

    /// Reads standard input on a thread of its own (a blocking read must not hold a task) until it ends.
    func run() async {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        reader.start()
        for await line in lines {
            guard let request = Self.parse(line) else { continue }
            do {
                if case .responded(let bundleID, let action, let delivery) = try await daemon.respond(request) {
                    printer.warn("\(bundleID) \(request.identifier): \(action) — \(delivery)")
                }
            } catch {
                printer.warn(error.localizedDescription)
            }
        }
    }

    /// `ID`, `ID ACTION` or `ID ACTION TEXT…`; nil for an empty line.
    static func parse(_ line: String) -> RespondRequest? {
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        guard let identifier = words.first else { return nil }
        return RespondRequest(
            bundleID: nil, identifier: identifier, action: words.count > 1 ? words[1] : "open",
            text: words.count > 2 ? words[2] : nil
        )
    }
}
