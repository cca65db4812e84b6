package import Foundation
import HeraldWire
package import UserNotifications

/// A remote notification's JSON payload, read as a device reads it, and the `UNNotificationRequest` it becomes.
///
/// Content comes from `aps`: `alert` (a string, the body, or a dictionary with `title`, `subtitle`, `body`,
/// `launch-image`, `summary-arg`, `summary-arg-count` and the loc keys `title-loc-key`/`title-loc-args`,
/// `subtitle-loc-key`/`subtitle-loc-args`, `loc-key`/`loc-args`), `badge`, `sound`, `category`, `thread-id`,
/// `interruption-level`, `relevance-score`, `target-content-id` and `filter-criteria`.
///
/// Wrong-typed values are ignored and the notification is still shown, as on a device: an `aps` that is not
/// a dictionary, a non-string text, category, thread id, target content id, filter criteria or interruption
/// level, an unknown interruption level (read as active), a `badge` that is not a whole number ≥ 0, a `sound`
/// that is neither a string nor a dictionary, a non-numeric `relevance-score` or `volume` (numbers out of 0…1
/// are clamped), `content-available` or `mutable-content` other than the number 1.
///
/// ```swift
/// let payload = try RemotePayload(json: Data(#"{"aps":{"alert":{"loc-key":"NEW_EPISODE","loc-args":["Ann"]}}}"#.utf8))
/// let request = payload.request(identifier: apnsID, strings: LocalizedStrings(bundleDirectory: app.bundleDirectory))
/// ```
package struct RemotePayload: Sendable {
    /// The whole payload, `aps` and custom keys, as `UNNotificationContent.userInfo` gives it to the app.
    /// JSON `null` has no property-list form: a key whose value is null is left out (at any depth), and so is
    /// a null element of an array.
    package private(set) var userInfo: [String: PropertyListValue]
    /// `aps.badge`: the app's new badge count (0 clears it); nil when absent or not a whole number ≥ 0.
    package private(set) var badge: Int?
    /// `aps.sound`: "default" (or an empty name) is the default sound, another string a sound file's name; a
    /// dictionary `{"critical": 1, "name": …, "volume": 0…1}` is a critical sound (without `critical: 1`, its
    /// `name` as a plain sound).
    package private(set) var sound: SoundRecord?
    /// `aps.content-available` is 1.
    package private(set) var contentAvailable: Bool
    /// `aps.mutable-content` is 1.
    package private(set) var mutableContent: Bool
    private var alert: RemoteAlert?
    private var aps: [String: JSONValue]

    /// Reads a payload.
    /// - Parameter json: a JSON object; `aps` is optional (a payload of custom keys only shows nothing).
    /// - Throws: `RemotePayloadError` when `json` is not JSON or not a JSON object.
    package init(json: Data) throws(RemotePayloadError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(json)
        } catch {
            throw RemotePayloadError(.notJSON, "the payload is not JSON (syntax error at byte \(error.offset))")
        }
        guard case .object(let payload) = value else {
            throw RemotePayloadError(
                .notAnObject, "the payload is a JSON \(Self.kind(of: value)), not an object like {\"aps\":{\"alert\":\"Hello\"}}")
        }
        userInfo = payload.compactMapValues(Self.propertyList)
        aps = payload["aps"]?.objectValue ?? [:]
        alert = RemoteAlert(aps["alert"])
        badge = aps["badge"]?.integerValue.flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
        sound = Self.sound(aps["sound"])
        contentAvailable = aps["content-available"]?.integerValue == 1
        mutableContent = aps["mutable-content"]?.integerValue == 1
    }

    /// The alert has a title, subtitle or body to show (a loc key counts: it shows its string or itself).
    package var alertIsPresent: Bool { alert?.hasText ?? false }

    /// `mutable-content: 1` with an alert: the app's service extension may rewrite it before it is shown.
    package var wantsServiceExtension: Bool { mutableContent && alertIsPresent }

    /// `content-available: 1` with no alert, badge or sound: the app is woken, nothing is presented.
    package var isBackground: Bool { contentAvailable && !alertIsPresent && badge == nil && sound == nil }

    /// `aps.category`: the category of the notification's actions (and content extension).
    package var categoryIdentifier: String? { aps["category"]?.stringValue }

    /// The request the device shows: trigger `.push`, content from `aps`, loc keys resolved with `strings`
    /// (nil: every loc key shows as itself).
    package func request(identifier: String, strings: LocalizedStrings?) -> RequestRecord {
        RequestRecord(identifier: identifier, content: content(strings: strings), trigger: .push)
    }

    /// The content of `request(identifier:strings:)`.
    package func content(strings: LocalizedStrings?) -> ContentRecord {
        var content = ContentRecord()
        if let alert {
            content.title = alert.title.resolved(with: strings)
            content.subtitle = alert.subtitle.resolved(with: strings)
            content.body = alert.body.resolved(with: strings)
            content.launchImageName = alert.launchImage ?? ""
            content.summaryArgument = alert.summaryArgument ?? ""
            content.summaryArgumentCount = alert.summaryArgumentCount ?? 0
        }
        content.badge = badge
        content.sound = sound
        content.userInfo = userInfo
        content.categoryIdentifier = categoryIdentifier ?? ""
        content.threadIdentifier = aps["thread-id"]?.stringValue ?? ""
        content.targetContentIdentifier = aps["target-content-id"]?.stringValue
        content.filterCriteria = aps["filter-criteria"]?.stringValue
        content.interruptionLevel = Self.interruptionLevel(aps["interruption-level"]).rawValue
        if let score = aps["relevance-score"]?.doubleValue, score.isFinite {
            content.relevanceScore = min(max(score, 0), 1)
        }
        return content
    }

    // MARK: - Reading values

    private static func interruptionLevel(_ value: JSONValue?) -> UNNotificationInterruptionLevel {
        switch value?.stringValue {
        case "passive": .passive
        case "time-sensitive": .timeSensitive
        case "critical": .critical
        default: .active
        }
    }

    private static func sound(_ value: JSONValue?) -> SoundRecord? {
        switch value {
        case .string(let name)?:
            return SoundRecord(name.isEmpty || name == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(rawValue: name)))
        case .object(let sound)?:
            let name = sound["name"]?.stringValue.flatMap { $0.isEmpty || $0 == "default" ? nil : UNNotificationSoundName(rawValue: $0) }
            guard sound["critical"]?.integerValue == 1 else {
                return SoundRecord(name.map { UNNotificationSound(named: $0) } ?? .default)
            }
            let volume = sound["volume"]?.doubleValue.flatMap { $0.isFinite ? Float($0) : nil }
            return SoundRecord(UNNotificationSound(name: name, isCritical: true, criticalVolume: volume))
        default:
            return nil
        }
    }

    /// A JSON value as a property-list value; nil for null.
    private static func propertyList(_ value: JSONValue) -> PropertyListValue? {
        switch value {
        case .null: nil
        case .bool(let bool): .bool(bool)
        case .integer(let integer): .integer(integer)
        case .number(let number): .double(number)
        case .string(let string): .string(string)
        case .array(let values): .array(values.compactMap(propertyList))
        case .object(let values): .dictionary(values.compactMapValues(propertyList))
        }
    }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
