public import Foundation
public import HeraldWire

/// Why a fault rule's JSON (or a `herald faults add` line) cannot be a rule, in words a person can act on.
public struct FaultRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

extension FaultRule {
    /// The statuses a rule may answer with, and the reason each takes unless one is given.
    public static let defaultReasons: [Int: APNsReason] = [
        400: .badDeviceToken, 403: .expiredProviderToken, 410: .unregistered, 413: .payloadTooLarge, 429: .tooManyRequests,
        500: .internalServerError, 503: .serviceUnavailable,
    ]

    /// A rule from its JSON (docs/faults.md); `id`, `createdAt` and `expiresAt` are kept when present (a stored rule),
    /// else made (`expiresIn` seconds from `now`, ten minutes by default).
    ///
    /// - Throws: ``FaultRuleError`` naming the field that is wrong and what it takes.
    public init(json: JSONValue, now: Date = Date()) throws(FaultRuleError) {
        guard let object = json.objectValue else { throw FaultRuleError("a fault rule is a JSON object with \"action\"") }
        let known: Set = ["id", "match", "count", "share", "seed", "action", "expiresIn", "expiresAt", "createdAt", "persistent"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw FaultRuleError("a fault rule has no field \"\(unknown)\"; it takes \(known.sorted().joined(separator: ", "))")
        }
        let match = try Self.match(object["match"])
        let scope = try Self.scope(count: object["count"], share: object["share"], seed: object["seed"])
        guard let actionJSON = object["action"] else { throw FaultRuleError("a fault rule needs \"action\": {\"kind\": …}") }
        let action = try Self.action(actionJSON)
        let createdAt = try object["createdAt"].map { value throws(FaultRuleError) in try Self.date(value, field: "createdAt") } ?? now
        var expiresAt = createdAt.addingTimeInterval(Self.defaultLifetime)
        if let at = object["expiresAt"] {
            expiresAt = try Self.date(at, field: "expiresAt")
        } else if let seconds = object["expiresIn"] {
            guard let seconds = seconds.doubleValue, seconds > 0, seconds <= 366 * 86_400 else {
                throw FaultRuleError("\"expiresIn\" is a number of seconds, more than 0 and at most a year")
            }
            expiresAt = createdAt.addingTimeInterval(seconds)
        }
        var persistent = false
        if let value = object["persistent"] {
            guard case .bool(let flag) = value else { throw FaultRuleError("\"persistent\" is true or false") }
            persistent = flag
        }
        let id = object["id"]?.stringValue ?? Self.newID()
        self.init(id: id, match: match, scope: scope, action: action, createdAt: createdAt, expiresAt: expiresAt, persistent: persistent)
    }

    /// A rule as a store kept it (its ``json`` as text).
    /// - Throws: ``StoreError`` `.corrupt` when the text is not a rule.
    public static func stored(_ text: String) throws(StoreError) -> FaultRule {
        do {
            return try FaultRule(json: try JSONValue.parse(Data(text.utf8)))
        } catch let error as FaultRuleError {
            throw StoreError(.corrupt, "a stored fault rule cannot be read: \(error.message)")
        } catch {
            throw StoreError(.corrupt, "a stored fault rule is not JSON: \(error)")
        }
    }

    /// The rule as the admin API lists it.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "match": match.json, "action": actionJSON, "createdAt": .string(Self.timestamp(createdAt)),
            "expiresAt": .string(Self.timestamp(expiresAt)), "persistent": .bool(persistent),
        ]
        switch scope {
        case .every: break
        case .count(let count): object["count"] = .integer(Int64(count))
        case .share(let percent, let seed):
            object["share"] = .number(percent)
            object["seed"] = .integer(Int64(bitPattern: seed))
        }
        return .object(object)
    }

    private var actionJSON: JSONValue {
        var object: [String: JSONValue] = ["kind": .string(actionKind)]
        switch action {
        case .answer(let reason, let timestamp):
            object["status"] = .integer(Int64(reason.status))
            object["reason"] = .string(reason.rawValue)
            if let timestamp { object["timestamp"] = .integer(timestamp) }
        case .delay(let milliseconds): object["milliseconds"] = .integer(Int64(milliseconds))
        case .goAway(let reason, let after):
            object["reason"] = .string(reason.rawValue)
            object["after"] = .integer(Int64(after))
        case .reset, .close, .stall, .drop: break
        }
        return .object(object)
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    private static func date(_ value: JSONValue, field: String) throws(FaultRuleError) -> Date {
        if let seconds = value.doubleValue { return Date(timeIntervalSince1970: seconds) }
        if let text = value.stringValue, let date = try? Date(text, strategy: .iso8601) { return date }
        if let text = value.stringValue,
            let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        {
            return date
        }
        throw FaultRuleError("\"\(field)\" is an ISO 8601 time or seconds since 1970")
    }

    // MARK: Reading the parts

    private static func match(_ value: JSONValue?) throws(FaultRuleError) -> Match {
        var match = Match()
        guard let value else { return match }
        guard let object = value.objectValue else { throw FaultRuleError("\"match\" is an object such as {\"topic\": \"com.example.app\"}") }
        let known: Set = ["token", "tokenPrefix", "topic", "pushType", "priority", "collapseID", "header", "payload"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw FaultRuleError("\"match\" has no field \"\(unknown)\"; it takes \(known.sorted().joined(separator: ", "))")
        }
        func text(_ key: String) throws(FaultRuleError) -> String? {
            guard let value = object[key] else { return nil }
            guard let text = value.stringValue, !text.isEmpty else { throw FaultRuleError("\"match.\(key)\" is a non-empty string") }
            return text
        }
        func hex(_ key: String) throws(FaultRuleError) -> String? {
            guard let text = try text(key) else { return nil }
            guard text.count <= 400, text.allSatisfy(\.isHexDigit) else {
                throw FaultRuleError("\"match.\(key)\" is hex digits of a device token, not \(text)")
            }
            return text.lowercased()
        }
        match.token = try hex("token")
        match.tokenPrefix = try hex("tokenPrefix")
        match.topic = try text("topic")
        if let name = try text("pushType") {
            let type = PushType(rawValue: name)
            guard PushType.allKnown.contains(type) else {
                let known = PushType.allKnown.map(\.rawValue).joined(separator: ", ")
                throw FaultRuleError("\"match.pushType\" \(name) is not a push type; APNs takes \(known)")
            }
            match.pushType = type
        }
        if let priority = object["priority"] {
            guard let number = priority.integerValue, [1, 5, 10].contains(number) else {
                throw FaultRuleError("\"match.priority\" is 1, 5 or 10")
            }
            match.priority = Priority(rawValue: Int(number))
        }
        match.collapseID = try text("collapseID")
        if let header = object["header"] {
            guard let name = header["name"]?.stringValue, !name.isEmpty, let value = header["value"]?.stringValue else {
                throw FaultRuleError("\"match.header\" is {\"name\": \"apns-…\", \"value\": \"…\"}")
            }
            match.header = HeaderMatch(name: name, value: value)
        }
        if let payload = object["payload"] {
            guard let pointer = payload["pointer"]?.stringValue, pointer.isEmpty || pointer.hasPrefix("/"), let value = payload["value"] else {
                throw FaultRuleError("\"match.payload\" is {\"pointer\": \"/aps/alert/title\", \"value\": …} (a JSON pointer, RFC 6901)")
            }
            match.payload = PayloadMatch(pointer: pointer, value: value)
        }
        return match
    }

    private static func scope(count: JSONValue?, share: JSONValue?, seed: JSONValue?) throws(FaultRuleError) -> Scope {
        switch (count, share) {
        case (nil, nil):
            guard seed == nil else { throw FaultRuleError("\"seed\" goes with \"share\"") }
            return .every
        case (let count?, nil):
            guard seed == nil else { throw FaultRuleError("\"seed\" goes with \"share\", not \"count\"") }
            guard let number = count.integerValue, number > 0, number <= 1_000_000_000 else {
                throw FaultRuleError("\"count\" is how many of the next matching requests the rule takes: 1 or more")
            }
            return .count(Int(number))
        case (nil, let share?):
            guard let percent = share.doubleValue, percent > 0, percent <= 100 else {
                throw FaultRuleError("\"share\" is the percentage of matching requests the rule takes: more than 0, at most 100")
            }
            var seedValue = UInt64.random(in: .min ... .max)
            if let seed {
                guard let number = seed.integerValue else { throw FaultRuleError("\"seed\" is a whole number") }
                seedValue = UInt64(bitPattern: number)
            }
            return .share(percent: percent, seed: seedValue)
        case (.some, .some):
            throw FaultRuleError("a rule takes \"count\" or \"share\", not both")
        }
    }

    private static func action(_ value: JSONValue) throws(FaultRuleError) -> Action {
        let kinds = "answer, delay, reset, goaway, close, stall, drop"
        guard let kind = value["kind"]?.stringValue else { throw FaultRuleError("\"action.kind\" is one of \(kinds)") }
        switch kind {
        case "answer":
            let reason = try answerReason(status: value["status"], reason: value["reason"])
            var timestamp: Int64?
            if let given = value["timestamp"] {
                guard reason.status == 410, let milliseconds = given.integerValue, milliseconds >= 0 else {
                    throw FaultRuleError("\"action.timestamp\" goes with a 410: milliseconds since 1970 when the token stopped being valid")
                }
                timestamp = milliseconds
            }
            return .answer(reason, timestamp: timestamp)
        case "delay":
            guard let milliseconds = value["milliseconds"]?.integerValue, milliseconds > 0, milliseconds <= 600_000 else {
                throw FaultRuleError("\"action.milliseconds\" is how long to hold the answer back: 1 to 600000")
            }
            return .delay(milliseconds: Int(milliseconds))
        case "goaway":
            let reason = APNsReason(rawValue: value["reason"]?.stringValue ?? APNsReason.shutdown.rawValue)
            guard APNsReason.statusTable[reason] != nil else {
                throw FaultRuleError("\"action.reason\" \(reason) is not an APNs reason (GOAWAY reasons APNs sends: Shutdown, IdleTimeout, …)")
            }
            var after = 0
            if let given = value["after"] {
                guard let number = given.integerValue, number >= 0, number <= 1_000_000 else {
                    throw FaultRuleError("\"action.after\" is how many more requests the connection answers first: 0 or more")
                }
                after = Int(number)
            }
            return .goAway(reason, after: after)
        case "reset": return .reset
        case "close": return .close
        case "stall": return .stall
        case "drop": return .drop
        default: throw FaultRuleError("\"action.kind\" \(kind) is not one of \(kinds)")
        }
    }

    /// The reason an `answer` gives: `reason` with its status (which `status`, when given, must be), or the usual
    /// reason of `status`.
    private static func answerReason(status: JSONValue?, reason: JSONValue?) throws(FaultRuleError) -> APNsReason {
        let statuses = defaultReasons.keys.sorted().map(String.init).joined(separator: ", ")
        var code: Int?
        if let status {
            guard let number = status.integerValue, defaultReasons[Int(number)] != nil else {
                throw FaultRuleError("\"action.status\" is an APNs error status: \(statuses)")
            }
            code = Int(number)
        }
        guard let name = reason?.stringValue else {
            guard let code, let reason = defaultReasons[code] else {
                throw FaultRuleError("an answer needs \"status\" (\(statuses)) or \"reason\" (an APNs reason such as Unregistered)")
            }
            return reason
        }
        let named = APNsReason(rawValue: name)
        guard let known = APNsReason.statusTable[named] else {
            throw FaultRuleError("\"action.reason\" \(name) is not an APNs reason (docs/provider-api.md lists them)")
        }
        if let code, code != known {
            throw FaultRuleError("APNs answers \(name) with \(known), not \(code)")
        }
        return named
    }
}

extension FaultRule.Match {
    /// The match as JSON: only the fields it has.
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let token { object["token"] = .string(token) }
        if let tokenPrefix { object["tokenPrefix"] = .string(tokenPrefix) }
        if let topic { object["topic"] = .string(topic) }
        if let pushType { object["pushType"] = .string(pushType.rawValue) }
        if let priority { object["priority"] = .integer(Int64(priority.rawValue)) }
        if let collapseID { object["collapseID"] = .string(collapseID) }
        if let header { object["header"] = .object(["name": .string(header.name), "value": .string(header.value)]) }
        if let payload { object["payload"] = .object(["pointer": .string(payload.pointer), "value": payload.value]) }
        return .object(object)
    }
}
