public import struct Foundation.Data

/// Checks a notification payload the way APNs does: size, JSON shape, the types of `aps` keys
/// and whether the payload fits its push type.
public enum PayloadCheck {
    /// Checks `body` for `pushType`; returns the parsed payload.
    ///
    /// - Throws: ``Rejection`` with `PayloadEmpty`, `PayloadTooLarge`, `BadPayload` or `InvalidPushType`.
    public static func check(_ body: Data, pushType: PushType) throws(Rejection) -> JSONValue {
        if body.isEmpty { throw Rejection(.payloadEmpty, "the request has no body") }
        let limit = pushType.maximumPayloadSize
        if body.count > limit {
            throw Rejection(.payloadTooLarge, "payload is \(body.count) bytes; the limit for \(pushType) is \(limit)")
        }
        let payload: JSONValue
        do {
            payload = try JSONValue.parse(body)
        } catch {
            throw Rejection(.badPayload, "payload is not valid JSON")
        }
        guard case .object(let root) = payload else {
            throw Rejection(.badPayload, "payload must be a JSON object")
        }
        if let aps = root["aps"] {
            guard case .object(let dictionary) = aps else {
                throw Rejection(.badPayload, "\"aps\" must be a dictionary")
            }
            try checkAPS(dictionary)
            try checkFit(dictionary, pushType: pushType)
        } else if pushType == .background {
            throw Rejection(.invalidPushType, "a background push needs \"aps\": {\"content-available\": 1}")
        }
        return payload
    }

    private static func checkFit(_ aps: [String: JSONValue], pushType: PushType) throws(Rejection) {
        guard pushType == .background else { return }
        if aps["content-available"]?.integerValue != 1 {
            throw Rejection(.invalidPushType, "a background push needs \"content-available\": 1")
        }
        for key in ["alert", "badge", "sound"] where aps[key] != nil {
            throw Rejection(.invalidPushType, "a background push must not contain \"\(key)\"")
        }
    }

    private static func checkAPS(_ aps: [String: JSONValue]) throws(Rejection) {
        for (key, value) in aps {
            switch key {
            case "alert":
                try checkAlert(value)
            case "badge", "content-available", "mutable-content", "stale-date", "timestamp", "dismissal-date":
                try expectInteger(value, key)
            case "thread-id", "category", "target-content-id", "filter-criteria", "attributes-type":
                try expectString(value, key)
            case "sound":
                try checkSound(value)
            case "interruption-level":
                let levels = ["passive", "active", "time-sensitive", "critical"]
                guard let level = value.stringValue, levels.contains(level) else {
                    throw Rejection(.badPayload, "\"interruption-level\" must be one of \(levels.joined(separator: ", "))")
                }
            case "relevance-score":
                guard let score = value.doubleValue, (0...1).contains(score) else {
                    throw Rejection(.badPayload, "\"relevance-score\" must be a number from 0 to 1")
                }
            case "event":
                guard let event = value.stringValue, ["start", "update", "end"].contains(event) else {
                    throw Rejection(.badPayload, "\"event\" must be start, update or end")
                }
            case "content-state", "attributes":
                guard value.objectValue != nil else {
                    throw Rejection(.badPayload, "\"\(key)\" must be a dictionary")
                }
            default:
                continue  // Apple ignores keys it does not know.
            }
        }
    }

    private static func checkAlert(_ value: JSONValue) throws(Rejection) {
        switch value {
        case .string:
            return
        case .object(let alert):
            for (key, field) in alert {
                if key.hasSuffix("-args") {
                    guard case .array(let args) = field, args.allSatisfy({ $0.stringValue != nil || $0.doubleValue != nil }) else {
                        throw Rejection(.badPayload, "\"alert.\(key)\" must be an array of strings")
                    }
                } else if ["title", "subtitle", "body", "launch-image", "title-loc-key", "subtitle-loc-key", "loc-key", "action-loc-key", "summary-arg"].contains(key) {
                    try expectString(field, "alert.\(key)")
                }
            }
        default:
            throw Rejection(.badPayload, "\"alert\" must be a string or a dictionary")
        }
    }

    private static func checkSound(_ value: JSONValue) throws(Rejection) {
        switch value {
        case .string:
            return
        case .object(let sound):
            if let critical = sound["critical"], critical.integerValue.map({ $0 == 0 || $0 == 1 }) != true {
                throw Rejection(.badPayload, "\"sound.critical\" must be 0 or 1")
            }
            if let name = sound["name"] { try expectString(name, "sound.name") }
            if let volume = sound["volume"], volume.doubleValue.map({ (0...1).contains($0) }) != true {
                throw Rejection(.badPayload, "\"sound.volume\" must be a number from 0 to 1")
            }
        default:
            throw Rejection(.badPayload, "\"sound\" must be a string or a dictionary")
        }
    }

    private static func expectInteger(_ value: JSONValue, _ key: String) throws(Rejection) {
        guard value.integerValue != nil else { throw Rejection(.badPayload, "\"\(key)\" must be a number") }
    }

    private static func expectString(_ value: JSONValue, _ key: String) throws(Rejection) {
        guard value.stringValue != nil else { throw Rejection(.badPayload, "\"\(key)\" must be a string") }
    }
}
