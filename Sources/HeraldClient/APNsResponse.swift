public import Foundation
public import HeraldWire

/// The gateway's (or Apple's) answer to one notification request.
public struct APNsResponse: Sendable {
    public var status: Int
    /// Response headers in the order received (`:status` excluded).
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    public var apnsID: String? { header("apns-id") }
    public var uniqueID: String? { header("apns-unique-id") }

    /// The `reason` of an error body, if any.
    public var reason: APNsReason? {
        (try? JSONValue.parse(body))?["reason"]?.stringValue.map(APNsReason.init(rawValue:))
    }

    /// The `timestamp` of a 410 body (milliseconds since 1970), if any.
    public var timestamp: Int64? {
        (try? JSONValue.parse(body))?["timestamp"]?.integerValue
    }
}

/// Why a request got no HTTP answer at all.
public struct APNsConnectionError: Error, CustomStringConvertible, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
