/// A request that APNs refuses: the reason it answers with and, for people, what exactly was wrong.
public struct Rejection: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: APNsReason
    /// A sentence for logs and CLI output; never contains tokens, JWTs or payload text.
    public var detail: String
    /// For 410: when the token stopped being valid for the topic, in milliseconds since 1970.
    public var timestamp: Int64?

    public init(_ reason: APNsReason, _ detail: String = "", timestamp: Int64? = nil) {
        self.reason = reason
        self.detail = detail
        self.timestamp = timestamp
    }

    public var description: String {
        detail.isEmpty ? reason.rawValue : "\(reason.rawValue): \(detail)"
    }
}
