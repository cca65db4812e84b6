/// The value of the `apns-push-type` header.
///
/// An open vocabulary: `PushType(rawValue:)` accepts any string so unknown types round-trip;
/// ``isKnown`` tells whether APNs accepts it.
public struct PushType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static let alert = PushType(rawValue: "alert")
    public static let background = PushType(rawValue: "background")
    public static let location = PushType(rawValue: "location")
    public static let voip = PushType(rawValue: "voip")
    public static let complication = PushType(rawValue: "complication")
    public static let fileProvider = PushType(rawValue: "fileprovider")
    public static let mdm = PushType(rawValue: "mdm")
    public static let liveActivity = PushType(rawValue: "liveactivity")
    public static let pushToTalk = PushType(rawValue: "pushtotalk")
    public static let widgets = PushType(rawValue: "widgets")
    public static let controls = PushType(rawValue: "controls")
    /// Herald's name for a Web Push message (RFC 8030) in the delivery log; not an APNs push type (``isKnown`` is false).
    public static let webPush = PushType(rawValue: "webpush")

    /// Every push type APNs accepts.
    public static let allKnown: [PushType] = [
        .alert, .background, .location, .voip, .complication, .fileProvider, .mdm, .liveActivity,
        .pushToTalk, .widgets, .controls,
    ]

    public var isKnown: Bool { Self.allKnown.contains(self) }

    /// The suffix APNs requires on `apns-topic` for this push type (empty for alert and background).
    ///
    /// `mdm` topics are the certificate's own topic and carry no suffix.
    public var topicSuffix: String {
        switch self {
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileProvider: ".pushkit.fileprovider"
        case .liveActivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushToTalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        default: ""
        }
    }

    /// The push type whose topic suffix ends `topic` (`com.example.app.voip`: voip), if any. A device token belongs to
    /// the bundle id without the suffix; the suffix goes only on `apns-topic`.
    public static func suffixed(_ topic: String) -> PushType? {
        allKnown.first { !$0.topicSuffix.isEmpty && topic.hasSuffix($0.topicSuffix) && topic.count > $0.topicSuffix.count }
    }

    /// The largest payload APNs accepts for this push type, in bytes.
    public var maximumPayloadSize: Int {
        self == .voip ? 5120 : 4096
    }

    /// The app's bundle id for a topic sent with this push type, or nil when the suffix is missing.
    public func bundleID(fromTopic topic: String) -> String? {
        let suffix = topicSuffix
        if suffix.isEmpty { return topic }
        guard topic.hasSuffix(suffix), topic.count > suffix.count else { return nil }
        return String(topic.dropLast(suffix.count))
    }
}
