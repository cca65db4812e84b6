/// What a payload's `aps` shows on a device: the alert texts and the badge, sound, category and thread.
///
/// Localized keys (`loc-key`, `title-loc-key`, …) are left as given: resolving them needs the app's
/// strings, which only the device has.
public struct PayloadContent: Sendable, Hashable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var badge: Int64?
    /// The sound's name (`sound` as a string, or the `name` of a critical-sound dictionary).
    public var sound: String?
    public var categoryIdentifier: String?
    public var threadIdentifier: String?

    public init(payload: JSONValue) {
        let aps = payload["aps"]
        switch aps?["alert"] {
        case .string(let text)?:
            body = text
        case .object(let alert)?:
            title = alert["title"]?.stringValue
            subtitle = alert["subtitle"]?.stringValue
            body = alert["body"]?.stringValue
        default:
            break
        }
        badge = aps?["badge"]?.integerValue
        sound = aps?["sound"]?.stringValue ?? aps?["sound"]?["name"]?.stringValue
        categoryIdentifier = aps?["category"]?.stringValue
        threadIdentifier = aps?["thread-id"]?.stringValue
    }
}
