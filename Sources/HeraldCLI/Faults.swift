import ArgumentParser
import Foundation
import HeraldStore
import HeraldWire

/// `herald faults`: scripted failures of the provider API, for testing a provider's error paths (docs/faults.md).
struct Faults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Script the provider API's failures: answers, delays, resets, GOAWAY, closed or stalled connections.",
        discussion: """
            A rule takes the requests the gateway would accept that match it (all of them, the next --count, or a --share \
            of them) and does its action instead. A running gateway sees a change within a second. Rules are honoured in \
            the development environment, and in production only by `herald serve --allow-faults`.
            """,
        subcommands: [Add.self, List.self, Remove.self, Clear.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a rule and print its id.",
            discussion: """
                Match (all given must hold): --token, --token-prefix, --topic, --push-type, --priority, --collapse-id, \
                --header NAME=VALUE, --payload-has /json/pointer=VALUE (VALUE as JSON, else as a string). Action (one): \
                --status/--reason [--timestamp], --delay, --reset, --goaway REASON [--goaway-after N], --close, --stall, \
                --drop. Examples:
                  herald faults add --token $TOKEN --status 410 --reason Unregistered --timestamp 1700000000000
                  herald faults add --topic com.example.app --share 25 --seed 7 --status 429
                  herald faults add --count 1 --goaway Shutdown --goaway-after 3
                """
        )

        @OptionGroup var store: StoreOption

        @Option(help: "The device token (hex) a request must go to.")
        var token: String?
        @Option(help: "The first hex digits of the device token.")
        var tokenPrefix: String?
        @Option(help: "The apns-topic a request must carry.")
        var topic: String?
        @Option(help: "The push type (alert, background, liveactivity, …).")
        var pushType: String?
        @Option(help: "The priority: 1, 5 or 10.")
        var priority: Int?
        @Option(help: "The apns-collapse-id.")
        var collapseID: String?
        @Option(help: "A request header and its value: NAME=VALUE.")
        var header: String?
        @Option(help: "A JSON pointer into the payload and the value there: /aps/alert/title=Hi.")
        var payloadHas: String?

        @Option(help: "Take only the next N matching requests.")
        var count: Int?
        @Option(help: "Take this percentage of the matching requests (chosen by --seed: the same ones every run).")
        var share: Double?
        @Option(help: "The seed of --share's choice.")
        var seed: Int64?

        @Option(help: "Answer with this status: 400, 403, 410, 413, 429, 500 or 503.")
        var status: Int?
        @Option(help: "Answer with this APNs reason (Unregistered, TooManyRequests, InternalServerError, Shutdown, …).")
        var reason: String?
        @Option(help: "A 410's timestamp: milliseconds since 1970 (default: now).")
        var timestamp: Int64?
        @Option(help: "Answer as usual, this many milliseconds late.")
        var delay: Int?
        @Flag(help: "Reset the request's stream (RST_STREAM INTERNAL_ERROR).")
        var reset = false
        @Option(help: "Send GOAWAY with this reason (Shutdown, …) and close the connection.")
        var goaway: String?
        @Option(help: "With --goaway: answer this many more requests on the connection first.")
        var goawayAfter: Int?
        @Flag(help: "Close the connection at once, without GOAWAY.")
        var close = false
        @Flag(help: "Answer and read nothing more on the connection.")
        var stall = false
        @Flag(help: "Answer 200 and never deliver.")
        var drop = false

        @Option(help: "Seconds until the rule expires (default 600).")
        var expires: Double?
        @Flag(help: "Keep the rule when the gateway restarts.")
        var persistent = false
        @Flag(help: "Print the rule as JSON, not only its id.")
        var json = false

        func run() async throws {
            let rule: FaultRule
            do {
                rule = try FaultRule(json: try definition())
            } catch {
                throw ValidationError(error.message)
            }
            try await store.withStore(creating: true) { store, _ in try await store.saveFaultRule(rule) }
            print(json ? String(decoding: rule.json.encoded(), as: UTF8.self) : rule.id)
        }

        /// The rule's JSON, from the options; what no option can say is left to ``FaultRule/init(json:now:)``.
        func definition() throws(FaultRuleError) -> JSONValue {
            var match: [String: JSONValue] = [:]
            if let token { match["token"] = .string(token) }
            if let tokenPrefix { match["tokenPrefix"] = .string(tokenPrefix) }
            if let topic { match["topic"] = .string(topic) }
            if let pushType { match["pushType"] = .string(pushType) }
            if let priority { match["priority"] = .integer(Int64(priority)) }
            if let collapseID { match["collapseID"] = .string(collapseID) }
            if let header {
                let (name, value) = try Self.split(header, option: "--header", example: "apns-push-type=alert")
                match["header"] = .object(["name": .string(name), "value": .string(value)])
            }
            if let payloadHas {
                let (pointer, value) = try Self.split(payloadHas, option: "--payload-has", example: "/aps/alert/title=Hello")
                match["payload"] = .object(["pointer": .string(pointer), "value": Self.value(value)])
            }
            var rule: [String: JSONValue] = ["match": .object(match), "action": try action()]
            if let count { rule["count"] = .integer(Int64(count)) }
            if let share { rule["share"] = .number(share) }
            if let seed { rule["seed"] = .integer(seed) }
            if let expires { rule["expiresIn"] = .number(expires) }
            if persistent { rule["persistent"] = .bool(true) }
            return .object(rule)
        }

        private func action() throws(FaultRuleError) -> JSONValue {
            var actions: [JSONValue] = []
            if status != nil || reason != nil {
                var answer: [String: JSONValue] = ["kind": .string("answer")]
                if let status { answer["status"] = .integer(Int64(status)) }
                if let reason { answer["reason"] = .string(reason) }
                if let timestamp { answer["timestamp"] = .integer(timestamp) }
                actions.append(.object(answer))
            } else if timestamp != nil {
                throw FaultRuleError("--timestamp goes with --status 410")
            }
            if let delay { actions.append(.object(["kind": .string("delay"), "milliseconds": .integer(Int64(delay))])) }
            if reset { actions.append(.object(["kind": .string("reset")])) }
            if let goaway {
                actions.append(.object(["kind": .string("goaway"), "reason": .string(goaway), "after": .integer(Int64(goawayAfter ?? 0))]))
            } else if goawayAfter != nil {
                throw FaultRuleError("--goaway-after goes with --goaway REASON")
            }
            if close { actions.append(.object(["kind": .string("close")])) }
            if stall { actions.append(.object(["kind": .string("stall")])) }
            if drop { actions.append(.object(["kind": .string("drop")])) }
            guard actions.count == 1 else {
                throw FaultRuleError(
                    (actions.isEmpty ? "say what the rule does" : "a rule does one thing")
                        + ": --status/--reason, --delay MS, --reset, --goaway REASON, --close, --stall or --drop")
            }
            return actions[0]
        }

        private static func split(_ text: String, option: String, example: String) throws(FaultRuleError) -> (String, String) {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw FaultRuleError("\(option) is NAME=VALUE, like \(example)")
            }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }

        /// A value as JSON when it reads as JSON (`3`, `true`, `"x"`, `{…}`), else as the string it is.
        static func value(_ text: String) -> JSONValue {
            (try? JSONValue.parse(Data(text.utf8))) ?? .string(text)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rules in force, oldest first.")

        @OptionGroup var store: StoreOption

        @Flag(help: "One JSON object per line.")
        var json = false

        func run() async throws {
            let rules = try await store.withStore(creating: false) { store, _ in try await store.faultRules(at: Date()) }
            for rule in rules {
                print(json ? String(decoding: rule.json.encoded(), as: UTF8.self) : Self.line(rule, now: Date()))
            }
        }

        /// `f0a1b2c3d  answered 410 Unregistered  token=ab12…  next 2  expires in 598 s`
        static func line(_ rule: FaultRule, now: Date) -> String {
            let what = rule.summary.replacingOccurrences(of: " (fault rule \(rule.id))", with: "")
            let matched = rule.match.json.objectValue?.sorted { $0.key < $1.key }.map { key, value in
                "\(key)=\(value.stringValue ?? String(decoding: value.encoded(), as: UTF8.self))"
            }
            let scope =
                switch rule.scope {
                case .every: "every request"
                case .count(let count): "next \(count)"
                case .share(let percent, let seed): "\(percent)% (seed \(Int64(bitPattern: seed)))"
                }
            let matches = matched.flatMap { $0.isEmpty ? nil : $0.joined(separator: " ") } ?? "any request"
            let left = Int(rule.expiresAt.timeIntervalSince(now).rounded())
            return [rule.id, what, matches, scope, "expires in \(left) s" + (rule.persistent ? ", persistent" : "")].joined(separator: "  ")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove one rule.")

        @OptionGroup var store: StoreOption

        @Argument(help: "The rule's id, as `herald faults add` printed it.")
        var id: String

        @Flag(help: "Say so as JSON: {\"removed\": ID}.")
        var json = false

        func run() async throws {
            let removed = try await store.withStore(creating: false) { store, _ in try await store.removeFaultRule(id: id) }
            guard removed else { throw ValidationError("no fault rule \(id): `herald faults list` shows the rules in force") }
            if json { print(String(decoding: JSONValue.object(["removed": .string(id)]).encoded(), as: UTF8.self)) }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every rule, persistent ones too.")

        @OptionGroup var store: StoreOption

        @Flag(help: "Say how many as JSON: {\"removed\": N}.")
        var json = false

        func run() async throws {
            let removed = try await store.withStore(creating: false) { store, _ in
                try await store.removeFaultRules(keepingPersistent: false, now: Date())
            }
            print(
                json
                    ? String(decoding: JSONValue.object(["removed": .integer(Int64(removed))]).encoded(), as: UTF8.self)
                    : "removed \(removed) fault rule\(removed == 1 ? "" : "s")")
        }
    }
}
