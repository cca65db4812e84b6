import Foundation
import HeraldWire
import NIOCore
import NIOHPACK

/// What the gateway answers to one provider request.
struct ProviderResponse: Sendable {
    var apnsID: UUID
    /// Sent in development only, for accepted notifications.
    var uniqueID: UUID?
    var rejection: Rejection?
    /// For 410: when the token stopped being valid, in milliseconds since 1970.
    var timestamp: Int64?

    var status: Int { rejection?.reason.status ?? 200 }

    var headers: HPACKHeaders {
        // Ids never repeat: adding them to the HPACK tables would only evict useful entries.
        var headers = HPACKHeaders()
        headers.reserveCapacity(4)
        headers.add(name: ":status", value: status == 200 ? "200" : String(status))
        headers.add(name: "apns-id", value: APNsID.format(apnsID), indexing: .nonIndexable)
        if let uniqueID { headers.add(name: "apns-unique-id", value: APNsID.format(uniqueID), indexing: .nonIndexable) }
        if rejection != nil { headers.add(name: "content-type", value: "application/json") }
        return headers
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
