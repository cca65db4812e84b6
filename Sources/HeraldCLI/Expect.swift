import ArgumentParser
import Foundation
import HeraldWire
import Synchronization

/// `herald expect`: an assertion for shell scripts and CI jobs — waits until the gateway accepted (or delivered) a
/// notification that matches, and exits 0 printing it; otherwise exits 1 saying what came instead (docs/ci.md).
struct Expect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Wait until a matching notification is accepted or delivered; exit 1 with what came instead.",
        discussion: """
            Looks at the delivery log's latest notifications first (one sent just before is found), then follows the \
            event stream. A request a fault rule took does not count. Example:
              herald expect --console http://127.0.0.1:8080 --admin-token $(cat DATA/admin-token) \\
                --token $TOKEN --payload-has /aps/alert/title=Hello --within 5
            """
    )

    enum State: String, ExpressibleByArgument, CaseIterable {
        case accepted, delivered
    }

    @Option(help: "The console's address, as `herald serve` prints it (or the ready file's \"console\").")
    var console: String

    @Option(help: "The admin token (DATA_DIR/admin-token, or the ready file's \"adminToken\").")
    var adminToken: String

    @Option(help: "The CA to trust for an https console.")
    var ca: String?

    @Option(help: "The device token (hex) the notification went to.")
    var token: String?

    @Option(help: "Its apns-topic.")
    var topic: String?

    @Option(help: "A JSON pointer into its payload and the value there: /aps/alert/title=Hello (VALUE as JSON, else a string).")
    var payloadHas: String?

    @Option(help: "accepted (answered 200 and committed) or delivered (acknowledged by its device).")
    var state = State.accepted

    @Option(help: "How many seconds to wait.")
    var within: Double

    func validate() throws {
        guard within > 0 else { throw ValidationError("--within is a number of seconds above 0") }
        if let token, DeviceToken(hex: token) == nil { throw ValidationError("--token is a device token in hex") }
        if let payloadHas, payloadHas.firstIndex(of: "=") == nil || !payloadHas.hasPrefix("/") {
            throw ValidationError("--payload-has is /json/pointer=VALUE, like /aps/alert/title=Hello")
        }
        guard URL(string: console)?.host != nil else { throw ValidationError("--console is a URL such as http://127.0.0.1:8080") }
    }

    func run() async throws {
        let client = ConsoleClient(base: URL(string: console)!, adminToken: adminToken, caPath: ca)
        let deadline = ContinuousClock.now + .milliseconds(Int64(within * 1000))
        // Followed first, so nothing accepted between the look at the log and the stream is missed.
        let events = try await client.events()
        for candidate in try await recent(client) {
            if try await Self.matches(candidate, match, client) { return report(candidate) }
        }
        let (match, wantedEvent, seen) = (match, state.rawValue, SeenEvents())
        let found: JSONValue? = try await withThrowingTaskGroup(of: JSONValue?.self) { group in
            group.addTask {
                for try await event in events {
                    if event.name == wantedEvent, try await Self.matches(event.data, match, client) { return event.data }
                    seen.append(Self.describe(event.name, event.data))
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let found { return report(found) }
        let lines = seen.lines
        let what = lines.isEmpty ? "nothing came" : "what came instead:\n" + lines.suffix(10).map { "  " + $0 }.joined(separator: "\n")
        let which = wanted.isEmpty ? "no notification" : "no notification \(wanted)"
        FileHandle.standardError.write(Data("herald expect: \(which) was \(state.rawValue) within \(within) s; \(what)\n".utf8))
        throw ExitCode(1)
    }

    /// What a notification must be.
    struct Match: Sendable {
        var token: String?
        var topic: String?
        /// The pointer and the value.
        var payload: (pointer: String, value: JSONValue)?
    }

    private var match: Match {
        var match = Match(token: token?.lowercased(), topic: topic)
        if let payloadHas, let equals = payloadHas.firstIndex(of: "=") {
            match.payload = (String(payloadHas[..<equals]), Faults.Add.value(String(payloadHas[payloadHas.index(after: equals)...])))
        }
        return match
    }

    /// The events seen that were not the one wanted, for the message.
    private final class SeenEvents: Sendable {
        private let state = Mutex<[String]>([])
        func append(_ line: String) { state.withLock { $0.append(line) } }
        var lines: [String] { state.withLock { $0 } }
    }

    /// The matching one, a JSON line on standard output.
    private func report(_ notification: JSONValue) {
        print(String(decoding: notification.encoded(), as: UTF8.self))
    }

    /// The latest page of the log (to the token, when given), newest first.
    private func recent(_ client: ConsoleClient) async throws -> [JSONValue] {
        let query = token.map { "?q=\($0.lowercased())&limit=50" } ?? "?limit=50"
        let (status, body) = try await client.get("/v1/notifications" + query)
        guard status == 200 else {
            throw ValidationError("the console answered \(status) to the delivery log: \(body["message"]?.stringValue ?? "check --admin-token")")
        }
        guard case .array(let notifications)? = body["notifications"] else { return [] }
        return notifications.filter { notification in
            switch state {
            case .accepted: ["pending", "delivered"].contains(notification["state"]?.stringValue ?? "")
            case .delivered: notification["state"]?.stringValue == "delivered"
            }
        }
    }

    /// Whether a notification (a log entry or an event's fields) is the one wanted; its payload is read when asked.
    private static func matches(_ notification: JSONValue, _ match: Match, _ client: ConsoleClient) async throws -> Bool {
        if let token = match.token, notification["deviceToken"]?.stringValue != token { return false }
        if let topic = match.topic, notification["topic"]?.stringValue != topic { return false }
        guard let (pointer, wanted) = match.payload else { return true }
        guard let id = notification["uniqueID"]?.stringValue else { return false }
        let (status, detail) = try await client.get("/v1/notifications/\(id)")
        guard status == 200, let found = detail["payload"]?.value(at: pointer) else { return false }
        if let number = found.doubleValue, let expected = wanted.doubleValue { return number == expected }
        return found == wanted
    }

    private var wanted: String {
        var parts: [String] = []
        if let token { parts.append("to \(token.prefix(8))…") }
        if let topic { parts.append("for \(topic)") }
        if let payloadHas { parts.append("with \(payloadHas)") }
        return parts.joined(separator: " ")
    }

    /// An event in one line: `accepted 4d1126d6… com.example.app`, with a fault rule's doing when there is one.
    private static func describe(_ name: String, _ data: JSONValue) -> String {
        let token = data["deviceToken"]?.stringValue.map { String($0.prefix(8)) + "…" } ?? ""
        let detail = name == "faulted" ? " — " + (data["detail"]?.stringValue ?? "") : ""
        return "\(name) \(token) \(data["topic"]?.stringValue ?? "")\(detail)"
    }
}
