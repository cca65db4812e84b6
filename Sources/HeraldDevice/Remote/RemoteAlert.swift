import Foundation
import HeraldWire
import UserNotifications

/// The `aps.alert` of a remote notification: a string (the body) or a dictionary of texts and loc keys.
///
/// Wrong-typed entries are ignored as a device ignores them: a non-string `title`, `subtitle`, `body`,
/// `launch-image` or loc key is as if absent; `*-loc-args` that is not an array means no arguments.
struct RemoteAlert: Sendable, Hashable {
    /// One text of the alert: literal, or a loc key with arguments (which wins when both are given).
    struct Text: Sendable, Hashable {
        var literal: String?
        var key: String?
        var arguments: [JSONValue] = []

        /// True when the text shows something: a non-empty literal, or a loc key (shown as its string or,
        /// missing from the strings, as the key itself).
        var isPresent: Bool {
            !(key ?? "").isEmpty || !(literal ?? "").isEmpty
        }

        /// The text shown: the loc key's string from `strings` (else the key itself, as iOS shows it) formatted
        /// with the arguments (`%@`, `%1$@`, `%d`, …), or the literal.
        func resolved(with strings: LocalizedStrings?) -> String {
            guard let key, !key.isEmpty else { return literal ?? "" }
            let format = strings?.string(forKey: key) ?? key
            guard !arguments.isEmpty else { return format }
            return NotificationStringFormat.format(format, arguments: arguments.map(Self.formatArgument))
        }

        /// A loc argument as the formatter takes it: strings and numbers as themselves, anything else as its JSON.
        private static func formatArgument(_ value: JSONValue) -> Any {
            switch value {
            case .string(let text): text
            case .integer(let integer): Int(integer)
            case .number(let number): number
            case .bool(let bool): bool
            default: String(decoding: value.encoded(), as: UTF8.self)
            }
        }
    }

    var title = Text()
    var subtitle = Text()
    var body = Text()
    var launchImage: String?
    var summaryArgument: String?
    var summaryArgumentCount: Int?

    /// Reads `aps.alert`; nil when it is absent or neither a string nor a dictionary.
    init?(_ value: JSONValue?) {
        switch value {
        case .string(let text)?:
            body.literal = text
        case .object(let alert)?:
            title = Self.text(alert, literal: "title", key: "title-loc-key", arguments: "title-loc-args")
            subtitle = Self.text(alert, literal: "subtitle", key: "subtitle-loc-key", arguments: "subtitle-loc-args")
            body = Self.text(alert, literal: "body", key: "loc-key", arguments: "loc-args")
            launchImage = alert["launch-image"]?.stringValue
            summaryArgument = alert["summary-arg"]?.stringValue
            summaryArgumentCount = alert["summary-arg-count"]?.integerValue.flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
        default:
            return nil
        }
    }

    /// Any title, subtitle or body to show.
    var hasText: Bool {
        title.isPresent || subtitle.isPresent || body.isPresent
    }

    private static func text(_ alert: [String: JSONValue], literal: String, key: String, arguments: String) -> Text {
        var arrayArguments: [JSONValue] = []
        if case .array(let values)? = alert[arguments] { arrayArguments = values }
        return Text(literal: alert[literal]?.stringValue, key: alert[key]?.stringValue, arguments: arrayArguments)
    }
}
