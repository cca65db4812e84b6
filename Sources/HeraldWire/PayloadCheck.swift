public import struct Foundation.Data

/// Checks a notification payload the way APNs does: size, JSON shape, the types of `aps` keys
/// and whether the payload fits its push type.
///
/// It runs on every notification the gateway accepts, so it checks while it reads, in one pass over the
/// bytes, and builds no dictionaries (parsing the payload into a ``JSONValue`` first cost 4.5% of the
/// gateway's CPU). A key sent twice is checked both times.
public enum PayloadCheck {
    /// Checks `body` for `pushType`.
    ///
    /// - Throws: ``Rejection`` with `PayloadEmpty`, `PayloadTooLarge`, `BadPayload` or `InvalidPushType`.
    public static func check(_ body: Data, pushType: PushType) throws(Rejection) {
        if body.isEmpty { throw Rejection(.payloadEmpty, "the request has no body") }
        let limit = pushType.maximumPayloadSize
        if body.count > limit {
            throw Rejection(.payloadTooLarge, "payload is \(body.count) bytes; the limit for \(pushType) is \(limit)")
        }
        // The readers below throw a Rejection for a broken rule, or the parser's SyntaxError for what is not JSON.
        let read = body.withUnsafeBytes { bytes in
            Result { () throws -> APS? in
                var parser = JSONParser(bytes)
                return try readPayload(&parser)
            }
        }
        switch read {
        case .success(let aps): try checkFit(aps, pushType: pushType)
        case .failure(let rejection as Rejection): throw rejection
        case .failure: throw Rejection(.badPayload, "payload is not valid JSON")
        }
    }

    /// What the push-type rules need to know of `aps`.
    private struct APS {
        var contentAvailable: Int64?
        var hasAlert = false
        var hasBadge = false
        var hasSound = false
    }

    /// Reads the whole payload, checking `aps`; returns what was seen of `aps`, nil when there is none.
    private static func readPayload(_ parser: inout JSONParser) throws -> APS? {
        guard try parser.enterObject() else {
            try parser.skipValue()
            try parser.finishDocument()
            throw Rejection(.badPayload, "payload must be a JSON object")
        }
        var aps: APS?
        while let key = try parser.nextMember() {
            guard key == "aps" else {
                try parser.skipValue()
                continue
            }
            guard try parser.enterObject() else { throw Rejection(.badPayload, "\"aps\" must be a dictionary") }
            aps = try readAPS(&parser)
        }
        try parser.finishDocument()
        return aps
    }

    private static func checkFit(_ aps: APS?, pushType: PushType) throws(Rejection) {
        guard pushType == .background else { return }
        guard let aps else {
            throw Rejection(.invalidPushType, "a background push needs \"aps\": {\"content-available\": 1}")
        }
        if aps.contentAvailable != 1 {
            throw Rejection(.invalidPushType, "a background push needs \"content-available\": 1")
        }
        for (key, present) in [("alert", aps.hasAlert), ("badge", aps.hasBadge), ("sound", aps.hasSound)] where present {
            throw Rejection(.invalidPushType, "a background push must not contain \"\(key)\"")
        }
    }

    /// Reads the members of `aps` (already entered).
    private static func readAPS(_ parser: inout JSONParser) throws -> APS {
        var aps = APS()
        while let key = try parser.nextMember() {
            switch key {
            case "alert":
                aps.hasAlert = true
                try readAlert(&parser)
            case "badge", "content-available", "mutable-content", "stale-date", "timestamp", "dismissal-date":
                guard let number = try parser.parseValue().integerValue else {
                    throw Rejection(.badPayload, "\"\(key)\" must be a number")
                }
                if key == "badge" { aps.hasBadge = true }
                if key == "content-available" { aps.contentAvailable = number }
            case "thread-id", "category", "target-content-id", "filter-criteria", "attributes-type":
                try readString(&parser, key)
            case "sound":
                aps.hasSound = true
                try readSound(&parser)
            case "interruption-level":
                let levels = ["passive", "active", "time-sensitive", "critical"]
                guard let level = try parser.parseValue().stringValue, levels.contains(level) else {
                    throw Rejection(.badPayload, "\"interruption-level\" must be one of \(levels.joined(separator: ", "))")
                }
            case "relevance-score":
                guard let score = try parser.parseValue().doubleValue, (0...1).contains(score) else {
                    throw Rejection(.badPayload, "\"relevance-score\" must be a number from 0 to 1")
                }
            case "event":
                guard let event = try parser.parseValue().stringValue, ["start", "update", "end"].contains(event) else {
                    throw Rejection(.badPayload, "\"event\" must be start, update or end")
                }
            case "content-state", "attributes":
                guard parser.peek() == UInt8(ascii: "{") else {
                    throw Rejection(.badPayload, "\"\(key)\" must be a dictionary")
                }
                try parser.skipValue()
            default:
                try parser.skipValue()  // Apple ignores keys it does not know.
            }
        }
        return aps
    }

    private static func readAlert(_ parser: inout JSONParser) throws {
        guard try enterDictionaryUnlessString(&parser, "alert") else { return }
        while let key = try parser.nextMember() {
            switch key {
            case _ where key.hasSuffix("-args"):
                let notStrings = Rejection(.badPayload, "\"alert.\(key)\" must be an array of strings")
                guard try parser.enterArray() else { throw notStrings }
                while try parser.nextElement() {
                    let argument = try parser.parseValue()
                    guard argument.stringValue != nil || argument.doubleValue != nil else { throw notStrings }
                }
            case "title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key", "loc-key", "action-loc-key",
                "summary-arg":
                try readString(&parser, "alert.\(key)")
            default:
                try parser.skipValue()
            }
        }
    }

    private static func readSound(_ parser: inout JSONParser) throws {
        guard try enterDictionaryUnlessString(&parser, "sound") else { return }
        while let key = try parser.nextMember() {
            switch key {
            case "critical":
                guard let critical = try parser.parseValue().integerValue, critical == 0 || critical == 1 else {
                    throw Rejection(.badPayload, "\"sound.critical\" must be 0 or 1")
                }
            case "name":
                try readString(&parser, "sound.name")
            case "volume":
                guard let volume = try parser.parseValue().doubleValue, (0...1).contains(volume) else {
                    throw Rejection(.badPayload, "\"sound.volume\" must be a number from 0 to 1")
                }
            default:
                try parser.skipValue()
            }
        }
    }

    /// For a key that takes a string or a dictionary: skips a string and returns false, or enters the dictionary.
    private static func enterDictionaryUnlessString(_ parser: inout JSONParser, _ key: String) throws -> Bool {
        if parser.peek() == UInt8(ascii: "\"") {
            try parser.skipValue()
            return false
        }
        guard try parser.enterObject() else {
            throw Rejection(.badPayload, "\"\(key)\" must be a string or a dictionary")
        }
        return true
    }

    private static func readString(_ parser: inout JSONParser, _ key: String) throws {
        guard parser.peek() == UInt8(ascii: "\"") else { throw Rejection(.badPayload, "\"\(key)\" must be a string") }
        try parser.skipValue()
    }
}
