import Foundation
import HeraldWire
import NIOCore

/// What the gateway answers to one provider request.
struct ProviderResponse: Sendable {
    var apnsID: UUID
    /// Sent in development only, for accepted notifications.
    var uniqueID: UUID?
    var rejection: Rejection?
    /// For 410: when the token stopped being valid, in milliseconds since 1970.
    var timestamp: Int64?
    /// An answer to a broadcast, whose id (``apnsID``) is its `apns-request-id`.
    var answersBroadcast = false
    /// What a fault rule does to the connection instead of this answer (or, for GOAWAY, after it).
    var connectionFault: ConnectionFault?

    /// A fault rule's doing to a provider connection (docs/faults.md).
    enum ConnectionFault: Equatable {
        /// RST_STREAM INTERNAL_ERROR instead of the answer.
        case reset
        /// The connection closed at once, without GOAWAY.
        case close
        /// Nothing more answered or read on the connection.
        case stall
        /// The answer, then GOAWAY `reason` after `after` more answers.
        case goAway(APNsReason, after: Int)
    }

    var status: Int { rejection?.reason.status ?? 200 }

    /// The answer's fields after `:status`: the ids, and the body's type when there is one.
    var fields: [(name: String, value: String)] {
        var fields = [(name: answersBroadcast ? "apns-request-id" : "apns-id", value: APNsID.format(apnsID))]
        if let uniqueID { fields.append((name: "apns-unique-id", value: APNsID.format(uniqueID))) }
        if rejection != nil { fields.append((name: "content-type", value: "application/json")) }
        return fields
    }

    /// `{"reason":"…"}` plus `"timestamp"` for 410; nil for 200.
    func body(allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard let rejection else { return nil }
        var text = #"{"reason":""# + rejection.reason.rawValue + #"""#
        if let timestamp { text += #","timestamp":\#(timestamp)"# }
        text += "}"
        return allocator.buffer(string: text)
    }
}
