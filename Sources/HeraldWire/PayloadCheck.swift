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
        let read = body.withUnsafeBytes { bytes -> Result<APS?, Rejection> in
            var reader = Reader(parser: JSONParser(bytes))
            do throws(Rejection) {
                return .success(try readPayload(&reader))
            } catch {
                return .failure(error)
            }
        }
        try checkFit(read.get(), pushType: pushType)
    }

    /// What the push-type rules need to know of `aps`.
    private struct APS {
        var contentAvailable: Int64?
        var hasAlert = false
        var hasBadge = false
        var hasSound = false
    }

    /// Reads the whole payload, checking `aps`; returns what was seen of `aps`, nil when there is none.
    private static func readPayload(_ reader: inout Reader) throws(Rejection) -> APS? {
        guard try reader.enterObject() else {
            try reader.skipValue()
            try reader.finish()
            throw Rejection(.badPayload, "payload must be a JSON object")
        }
        var aps: APS?
        while let key = try reader.nextMember() {
            guard key == "aps" else {
                try reader.skipValue()
                continue
            }
            guard try reader.enterObject() else { throw Rejection(.badPayload, "\"aps\" must be a dictionary") }
            aps = try readAPS(&reader)
        }
        try reader.finish()
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
    private static func readAPS(_ reader: inout Reader) throws(Rejection) -> APS {
        var aps = APS()
        while let key = try reader.nextMember() {
            switch key {
            case "alert":
                aps.hasAlert = true
                try readAlert(&reader)
            case "badge", "content-available", "mutable-content", "stale-date", "timestamp", "dismissal-date":
                guard let number = try reader.value().integerValue else {
                    throw Rejection(.badPayload, "\"\(key)\" must be a number")
                }
                if key == "badge" { aps.hasBadge = true }
                if key == "content-available" { aps.contentAvailable = number }
            case "thread-id", "category", "target-content-id", "filter-criteria", "attributes-type":
                try readString(&reader, key)
            case "sound":
                aps.hasSound = true
                try readSound(&reader)
            case "interruption-level":
                let levels = ["passive", "active", "time-sensitive", "critical"]
                guard let level = try reader.value().stringValue, levels.contains(level) else {
                    throw Rejection(.badPayload, "\"interruption-level\" must be one of \(levels.joined(separator: ", "))")
                }
            case "relevance-score":
                guard let score = try reader.value().doubleValue, (0...1).contains(score) else {
                    throw Rejection(.badPayload, "\"relevance-score\" must be a number from 0 to 1")
                }
            case "event":
                guard let event = try reader.value().stringValue, ["start", "update", "end"].contains(event) else {
                    throw Rejection(.badPayload, "\"event\" must be start, update or end")
                }
            case "content-state", "attributes":
                guard reader.peek() == UInt8(ascii: "{") else {
                    throw Rejection(.badPayload, "\"\(key)\" must be a dictionary")
                }
                try reader.skipValue()
            default:
                try reader.skipValue()  // Apple ignores keys it does not know.
            }
        }
        return aps
    }

    private static func readAlert(_ reader: inout Reader) throws(Rejection) {
        guard try enterDictionaryUnlessString(&reader, "alert") else { return }
        while let key = try reader.nextMember() {
            switch key {
            case _ where key.hasSuffix("-args"):
                let notStrings = Rejection(.badPayload, "\"alert.\(key)\" must be an array of strings")
                guard try reader.enterArray() else { throw notStrings }
                while try reader.nextElement() {
                    let argument = try reader.value()
                    guard argument.stringValue != nil || argument.doubleValue != nil else { throw notStrings }
                }
            case "title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key", "loc-key", "action-loc-key",
                "summary-arg":
                try readString(&reader, "alert.\(key)")
            default:
                try reader.skipValue()
            }
        }
    }

    private static func readSound(_ reader: inout Reader) throws(Rejection) {
        guard try enterDictionaryUnlessString(&reader, "sound") else { return }
        while let key = try reader.nextMember() {
            switch key {
            case "critical":
                guard let critical = try reader.value().integerValue, critical == 0 || critical == 1 else {
                    throw Rejection(.badPayload, "\"sound.critical\" must be 0 or 1")
                }
            case "name":
                try readString(&reader, "sound.name")
            case "volume":
                guard let volume = try reader.value().doubleValue, (0...1).contains(volume) else {
                    throw Rejection(.badPayload, "\"sound.volume\" must be a number from 0 to 1")
                }
            default:
                try reader.skipValue()
            }
        }
    }

    /// For a key that takes a string or a dictionary: skips a string and returns false, or enters the dictionary.
    private static func enterDictionaryUnlessString(_ reader: inout Reader, _ key: String) throws(Rejection) -> Bool {
        if reader.peek() == UInt8(ascii: "\"") {
            try reader.skipValue()
            return false
        }
        guard try reader.enterObject() else {
            throw Rejection(.badPayload, "\"\(key)\" must be a string or a dictionary")
        }
        return true
    }

    private static func readString(_ reader: inout Reader, _ key: String) throws(Rejection) {
        guard reader.peek() == UInt8(ascii: "\"") else { throw Rejection(.badPayload, "\"\(key)\" must be a string") }
        try reader.skipValue()
    }

    /// The JSON parser read step by step, its syntax errors turned into `BadPayload`.
    private struct Reader {
        var parser: JSONParser

        mutating func peek() -> UInt8? { parser.peek() }
        mutating func enterObject() throws(Rejection) -> Bool { try step { parser throws(JSONParser.SyntaxError) in try parser.enterObject() } }
        mutating func nextMember() throws(Rejection) -> String? { try step { parser throws(JSONParser.SyntaxError) in try parser.nextMember() } }
        mutating func enterArray() throws(Rejection) -> Bool { try step { parser throws(JSONParser.SyntaxError) in try parser.enterArray() } }
        mutating func nextElement() throws(Rejection) -> Bool { try step { parser throws(JSONParser.SyntaxError) in try parser.nextElement() } }
        /// The next value, parsed (meant for scalars: containers are built too).
        mutating func value() throws(Rejection) -> JSONValue { try step { parser throws(JSONParser.SyntaxError) in try parser.parseValue() } }
        mutating func skipValue() throws(Rejection) { try step { parser throws(JSONParser.SyntaxError) in try parser.skipValue() } }
        mutating func finish() throws(Rejection) { try step { parser throws(JSONParser.SyntaxError) in try parser.finishDocument() } }

        private mutating func step<T>(_ read: (inout JSONParser) throws(JSONParser.SyntaxError) -> T) throws(Rejection) -> T {
            do {
                return try read(&parser)
            } catch {
                throw Rejection(.badPayload, "payload is not valid JSON")
            }
        }
    }
}
