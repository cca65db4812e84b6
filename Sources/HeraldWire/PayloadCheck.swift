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
        try checkFit(try read(body, limit: pushType.maximumPayloadSize, what: "\(pushType)"), pushType: pushType)
    }

    /// Checks a broadcast's body (iOS 18): at most 5,120 bytes, the Live Activity rules, and no `start` (a broadcast
    /// updates or ends the activities subscribed to its channel).
    public static func checkBroadcast(_ body: Data) throws(Rejection) {
        let aps = try read(body, limit: BroadcastHead.maximumPayloadSize, what: "a broadcast")
        try checkLiveActivity(aps)
        if aps?.event == "start" {
            throw Rejection(.badPayload, "a broadcast updates or ends activities; a start goes to a push-to-start token")
        }
    }

    /// The size checks, then the whole payload read and `aps` checked; what was seen of `aps`, nil when there is none.
    private static func read(_ body: Data, limit: Int, what: String) throws(Rejection) -> APS? {
        if body.isEmpty { throw Rejection(.payloadEmpty, "the request has no body") }
        if body.count > limit {
            throw Rejection(.payloadTooLarge, "payload is \(body.count) bytes; the limit for \(what) is \(limit)")
        }
        // The readers below throw a Rejection for a broken rule, or the parser's SyntaxError for what is not JSON.
        let read = body.withUnsafeBytes { bytes in
            Result { () throws -> APS? in
                var parser = JSONParser(bytes)
                return try readPayload(&parser)
            }
        }
        switch read {
        case .success(let aps): return aps
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
        /// Live Activities' keys.
        var event: String?
        var hasTimestamp = false
        var hasContentState = false
        var hasAttributes = false
        var hasAttributesType = false
        var hasInputPushToken = false
        var hasInputPushChannel = false
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
        if pushType == .liveActivity { return try checkLiveActivity(aps) }
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

    /// Apple's rules for an ActivityKit push (docs/provider-api.md): every push names its `event` and `timestamp`;
    /// start and update carry the new `content-state`; a start (push-to-start) also names the attributes' type and
    /// values and alerts; only a start may ask for the new activity's push token or channel, and for one of them.
    private static func checkLiveActivity(_ aps: APS?) throws(Rejection) {
        guard let aps, let event = aps.event else {
            throw Rejection(.badPayload, "a Live Activity push needs \"aps\": {\"event\": \"start\", \"update\" or \"end\", …}")
        }
        guard aps.hasTimestamp else { throw Rejection(.badPayload, "a Live Activity push needs \"timestamp\" (UNIX seconds)") }
        if event != "end" && !aps.hasContentState {
            throw Rejection(.badPayload, "a Live Activity \(event) needs \"content-state\"")
        }
        if event == "start" {
            for (key, present) in [("attributes-type", aps.hasAttributesType), ("attributes", aps.hasAttributes), ("alert", aps.hasAlert)]
            where !present {
                throw Rejection(.badPayload, "a Live Activity start needs \"\(key)\"")
            }
            if aps.hasInputPushToken && aps.hasInputPushChannel {
                throw Rejection(.badPayload, "a Live Activity start takes \"input-push-token\" or \"input-push-channel\", not both")
            }
        } else if aps.hasInputPushToken || aps.hasInputPushChannel {
            let key = aps.hasInputPushToken ? "input-push-token" : "input-push-channel"
            throw Rejection(.badPayload, "\"\(key)\" belongs in a Live Activity start, not an \(event)")
        }
    }

    /// Reads the members of `aps` (already entered).
    private static func readAPS(_ parser: inout JSONParser) throws -> APS {
        var aps = APS()
        while let key = try parser.nextMember() {
            // A member sent as null counts as absent: APNs takes `"badge": null` (clients such as
            // django-push-notifications send every key they have, null or not).
            if parser.peek() == UInt8(ascii: "n") {
                try parser.skipValue()
                continue
            }
            switch key {
            case "alert":
                aps.hasAlert = true
                try readAlert(&parser)
            case "badge", "content-available", "mutable-content", "stale-date", "timestamp", "dismissal-date":
                guard let number = try parser.parseValue().integerValue else {
                    throw Rejection(.badPayload, "\"\(key)\" must be a number")
                }
                switch key {
                case "badge": aps.hasBadge = true
                case "content-available": aps.contentAvailable = number
                case "timestamp": aps.hasTimestamp = true
                default: break
                }
            case "thread-id", "category", "target-content-id", "filter-criteria", "attributes-type", "input-push-channel":
                try readString(&parser, key)
                if key == "attributes-type" { aps.hasAttributesType = true }
                if key == "input-push-channel" { aps.hasInputPushChannel = true }
            case "input-push-token":
                guard try parser.parseValue().integerValue == 1 else { throw Rejection(.badPayload, "\"input-push-token\" must be 1") }
                aps.hasInputPushToken = true
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
                aps.event = event
            case "content-state", "attributes":
                guard parser.peek() == UInt8(ascii: "{") else {
                    throw Rejection(.badPayload, "\"\(key)\" must be a dictionary")
                }
                try parser.skipValue()
                if key == "content-state" { aps.hasContentState = true } else { aps.hasAttributes = true }
            default:
                try parser.skipValue()  // Apple ignores keys it does not know.
            }
        }
        return aps
    }

    private static func readAlert(_ parser: inout JSONParser) throws {
        guard try enterDictionaryUnlessString(&parser, "alert") else { return }
        while let key = try parser.nextMember() {
            if parser.peek() == UInt8(ascii: "n") {
                try parser.skipValue()  // null: absent, as in `aps`
                continue
            }
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
            if parser.peek() == UInt8(ascii: "n") {
                try parser.skipValue()  // null: absent, as in `aps`
                continue
            }
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
