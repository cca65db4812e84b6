import Foundation
import HeraldWire

/// The send form's live check of a payload: the provider API's own verdict (``PayloadCheck``), where a JSON error
/// is (line and column), the size against the push type's limit, and `aps` keys APNs does not know.
enum PayloadReport {
    /// The keys APNs defines in `aps`, across push types.
    static let knownAPSKeys: Set<String> = [
        "alert", "badge", "sound", "thread-id", "category", "content-available", "mutable-content", "target-content-id",
        "interruption-level", "relevance-score", "filter-criteria", "stale-date", "content-state", "timestamp", "event",
        "dismissal-date", "attributes-type", "attributes", "input-push-channel", "input-push-token", "url-args", "content-changed",
    ]

    /// `{"size":…,"limit":…,"status":200}` or with `"reason"`, `"message"` and, for a JSON error, `"line"` and `"column"`;
    /// `"warnings"` lists what APNs accepts but no device will use.
    static func check(_ payload: String, pushType: PushType) -> JSONValue {
        let bytes = Data(payload.utf8)
        var fields: [String: JSONValue] = [
            "size": .integer(Int64(bytes.count)), "limit": .integer(Int64(pushType.maximumPayloadSize)),
        ]
        var parsed: JSONValue?
        do {
            parsed = try JSONValue.parse(bytes)
        } catch {
            let (line, column) = position(of: error.offset, in: bytes)
            fields["line"] = .integer(Int64(line))
            fields["column"] = .integer(Int64(column))
        }
        do throws(Rejection) {
            try PayloadCheck.check(bytes, pushType: pushType)
            fields["status"] = .integer(200)
        } catch {
            fields["status"] = .integer(Int64(error.reason.status))
            fields["reason"] = .string(error.reason.rawValue)
            var message = error.detail
            if case .integer(let line) = fields["line"], case .integer(let column) = fields["column"] {
                message += " (line \(line), column \(column))"
            }
            fields["message"] = .string(message)
        }
        if case .object(let aps)? = parsed?["aps"] {
            let unknown = aps.keys.filter { !knownAPSKeys.contains($0) }.sorted()
            fields["warnings"] = .array(
                unknown.map { .string("\"\($0)\" is not an aps key APNs knows; devices ignore it (custom keys belong outside aps)") })
        }
        return .object(fields)
    }

    /// The 1-based line and column (in characters) of a byte offset.
    static func position(of offset: Int, in bytes: Data) -> (line: Int, column: Int) {
        let before = bytes.prefix(max(0, min(offset, bytes.count)))
        let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? before.startIndex
        let column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
        return (line, column)
    }
}
