public import struct Foundation.Data
public import struct Foundation.Date

/// A notification payload built with types: the `aps` dictionary and your own keys beside it.
///
/// ```swift
/// var payload = APNsPayload()
/// payload.aps.alert = .init(title: "Order shipped", body: "Arrives Tuesday")
/// payload.aps.badge = 3
/// payload.aps.sound = .named("chime.caf")
/// payload["order-id"] = .string("A-1234")
/// let body = payload.encoded()   // {"aps":{"alert":{"body":"Arrives Tuesday","title":"Order shipped"},"badge":3,"sound":"chime.caf"},"order-id":"A-1234"}
/// ```
public struct APNsPayload: Sendable, Hashable {
    public var aps: APS
    /// Keys beside `aps` (never inside it); they reach the app as `userInfo`.
    public var custom: [String: JSONValue]
    /// Whether `aps` is written even when empty (APNs wants `"aps":{}` in most payloads).
    public var includesEmptyAPS = true

    public init(aps: APS = APS(), custom: [String: JSONValue] = [:]) {
        self.aps = aps
        self.custom = custom
    }

    /// A custom key.
    public subscript(key: String) -> JSONValue? {
        get { custom[key] }
        set { custom[key] = newValue }
    }

    public var jsonValue: JSONValue {
        var root = custom
        let aps = self.aps.jsonValue
        if includesEmptyAPS || aps.objectValue?.isEmpty == false {
            root["aps"] = aps
        } else {
            root["aps"] = nil
        }
        return .object(root)
    }

    /// Compact JSON, keys sorted.
    public func encoded() -> Data {
        jsonValue.encoded()
    }
}

/// The `aps` dictionary: every key APNs defines.
public struct APS: Sendable, Hashable {
    public var alert: Alert?
    /// The app icon's badge; 0 clears it.
    public var badge: Int?
    public var sound: Sound?
    public var threadID: String?
    public var category: String?
    /// `content-available: 1`: wake the app in the background.
    public var contentAvailable = false
    /// `mutable-content: 1`: run the notification service extension.
    public var mutableContent = false
    public var targetContentID: String?
    public var interruptionLevel: InterruptionLevel?
    /// 0…1: which notification leads its group in the summary.
    public var relevanceScore: Double?
    public var filterCriteria: String?
    /// Live Activities: when the content is out of date.
    public var staleDate: Date?
    /// Live Activities: the activity's new state (your `ContentState`, as JSON).
    public var contentState: JSONValue?
    /// Live Activities: when this update was made; older updates are dropped.
    public var timestamp: Date?
    public var event: LiveActivityEvent?
    /// Live Activities: when an ended activity leaves the Lock Screen.
    public var dismissalDate: Date?
    /// Live Activities (push to start): the attributes type name.
    public var attributesType: String?
    /// Live Activities (push to start): the attributes, as JSON.
    public var attributes: JSONValue?
    /// Widgets and controls: `content-changed: true` asks the system to reload them.
    public var contentChanged = false
    /// Keys this type does not know, written as given.
    public var other: [String: JSONValue] = [:]

    public init() {}

    public var jsonValue: JSONValue {
        var aps = other
        if let alert { aps["alert"] = alert.jsonValue }
        if let badge { aps["badge"] = .integer(Int64(badge)) }
        if let sound { aps["sound"] = sound.jsonValue }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let category { aps["category"] = .string(category) }
        if contentAvailable { aps["content-available"] = .integer(1) }
        if mutableContent { aps["mutable-content"] = .integer(1) }
        if let targetContentID { aps["target-content-id"] = .string(targetContentID) }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.rawValue) }
        if let relevanceScore { aps["relevance-score"] = .number(relevanceScore) }
        if let filterCriteria { aps["filter-criteria"] = .string(filterCriteria) }
        if let staleDate { aps["stale-date"] = .integer(Self.seconds(staleDate)) }
        if let contentState { aps["content-state"] = contentState }
        if let timestamp { aps["timestamp"] = .integer(Self.seconds(timestamp)) }
        if let event { aps["event"] = .string(event.rawValue) }
        if let dismissalDate { aps["dismissal-date"] = .integer(Self.seconds(dismissalDate)) }
        if let attributesType { aps["attributes-type"] = .string(attributesType) }
        if let attributes { aps["attributes"] = attributes }
        if contentChanged { aps["content-changed"] = .bool(true) }
        return .object(aps)
    }

    private static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }
}

extension APS {
    /// The alert: plain text, or a dictionary of texts and localization keys.
    public struct Alert: Sendable, Hashable {
        public var title: String?
        public var subtitle: String?
        public var body: String?
        public var launchImage: String?
        public var titleLocKey: String?
        public var titleLocArgs: [String]?
        public var subtitleLocKey: String?
        public var subtitleLocArgs: [String]?
        public var locKey: String?
        public var locArgs: [String]?
        /// Written as `"alert": "body"` when only a body is set.
        public var prefersStringForm = true

        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
        }

        /// A localized alert: the app's strings file turns keys into text on the device.
        public static func localized(
            titleKey: String? = nil, titleArgs: [String]? = nil,
            subtitleKey: String? = nil, subtitleArgs: [String]? = nil,
            bodyKey: String? = nil, bodyArgs: [String]? = nil
        ) -> Alert {
            var alert = Alert()
            alert.titleLocKey = titleKey
            alert.titleLocArgs = titleArgs
            alert.subtitleLocKey = subtitleKey
            alert.subtitleLocArgs = subtitleArgs
            alert.locKey = bodyKey
            alert.locArgs = bodyArgs
            return alert
        }

        public var jsonValue: JSONValue {
            var alert: [String: JSONValue] = [:]
            alert["title"] = title.map(JSONValue.string)
            alert["subtitle"] = subtitle.map(JSONValue.string)
            alert["body"] = body.map(JSONValue.string)
            alert["launch-image"] = launchImage.map(JSONValue.string)
            alert["title-loc-key"] = titleLocKey.map(JSONValue.string)
            alert["title-loc-args"] = titleLocArgs.map { .array($0.map(JSONValue.string)) }
            alert["subtitle-loc-key"] = subtitleLocKey.map(JSONValue.string)
            alert["subtitle-loc-args"] = subtitleLocArgs.map { .array($0.map(JSONValue.string)) }
            alert["loc-key"] = locKey.map(JSONValue.string)
            alert["loc-args"] = locArgs.map { .array($0.map(JSONValue.string)) }
            if prefersStringForm, alert.count == 1, let body { return .string(body) }
            return .object(alert)
        }
    }

    /// A sound: a file name (`"default"` for the system sound), or a critical alert sound.
    public struct Sound: Sendable, Hashable {
        public var name: String
        public var critical: Bool
        /// 0…1; critical sounds only.
        public var volume: Double?

        public static func named(_ name: String) -> Sound {
            Sound(name: name, critical: false, volume: nil)
        }

        public static let `default` = Sound.named("default")

        /// A critical alert sound (needs Apple's entitlement), played even when the device is muted.
        public static func critical(_ name: String = "default", volume: Double = 1) -> Sound {
            Sound(name: name, critical: true, volume: volume)
        }

        public var jsonValue: JSONValue {
            guard critical else { return .string(name) }
            var sound: [String: JSONValue] = ["critical": .integer(1), "name": .string(name)]
            if let volume { sound["volume"] = .number(volume) }
            return .object(sound)
        }
    }

    /// `interruption-level`; an open vocabulary.
    public struct InterruptionLevel: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let passive = InterruptionLevel(rawValue: "passive")
        public static let active = InterruptionLevel(rawValue: "active")
        public static let timeSensitive = InterruptionLevel(rawValue: "time-sensitive")
        public static let critical = InterruptionLevel(rawValue: "critical")
    }

    /// A Live Activity's `event`; an open vocabulary.
    public struct LiveActivityEvent: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let start = LiveActivityEvent(rawValue: "start")
        public static let update = LiveActivityEvent(rawValue: "update")
        public static let end = LiveActivityEvent(rawValue: "end")
    }
}
