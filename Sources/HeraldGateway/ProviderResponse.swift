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

    /// The answer's header block, for a connection whose peer's HPACK table already holds the id headers in
    /// `indexed` (updated with what this block adds).
    ///
    /// The ids never repeat: indexing their values would only evict useful entries. But the first time a
    /// connection sends each id header, the field goes into the table, so that every later answer names the
    /// header by its index instead of Huffman-coding its name again (and the client decoding it).
    func headers(indexed: inout IndexedIDHeaders) -> HPACKHeaders {
        var headers = HPACKHeaders()
        headers.reserveCapacity(4)
        headers.add(name: ":status", value: status == 200 ? "200" : String(status))
        headers.add(name: "apns-id", value: APNsID.format(apnsID), indexing: indexed.contains(.apnsID) ? .nonIndexable : .indexable)
        indexed.insert(.apnsID)
        if let uniqueID {
            headers.add(name: "apns-unique-id", value: APNsID.format(uniqueID), indexing: indexed.contains(.uniqueID) ? .nonIndexable : .indexable)
            indexed.insert(.uniqueID)
        }
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

/// The id headers a connection has put into its peer's HPACK dynamic table.
struct IndexedIDHeaders: OptionSet {
    var rawValue: UInt8
    static let apnsID = IndexedIDHeaders(rawValue: 1 << 0)
    static let uniqueID = IndexedIDHeaders(rawValue: 1 << 1)
}
