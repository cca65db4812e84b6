import HeraldHTTP2
import NIOCore

/// Writes the header blocks of one connection's requests (RFC 7541), keeping a copy of the table the server builds
/// from them. Fields that repeat from request to request (`:authority`, `authorization`, `apns-topic`,
/// `apns-push-type`, `apns-priority`, `apns-collapse-id`) are added to the table once and then sent as one index each:
/// a provider token alone is about 200 bytes. Fields that differ for each request (the device's path, `apns-id`,
/// `apns-expiration`) are literals that are not indexed, so they never push the repeating ones out. No Huffman coding:
/// it would save a fifth of the literals' bytes for a pass over each of them bit by bit.
///
/// Part of the provider client's own HTTP/2 layer (issue 40).
struct RequestHeaderEncoder {
    /// The table's capacity as the encoder uses it, at most the 4,096 bytes every HPACK decoder starts with.
    private var table = HPACKTable(capacity: 4096)
    /// How each place of the last block was sent, while the table stays as it was. A request's fields come in the same
    /// order as the last one's and mostly as the very same strings, which one comparison of their storage then finds,
    /// instead of the look-ups by name and in the table (with them, encoding took 7% of the client's CPU).
    private var lastBlock: [Sent] = []

    /// How a field was sent.
    private enum Sent {
        /// As an index of a whole field.
        case index(Int, name: String, value: String)
        /// As a literal without indexing, under the static table's index of its name if it has one.
        case literal(nameIndex: Int?, name: String)
        /// As a literal added to the table, which makes every dynamic index one higher.
        case inserted
        /// Not known: the next field in this place is looked up.
        case unknown
    }

    /// Capacities the server announced (SETTINGS_HEADER_TABLE_SIZE) since the last block, to tell it at the next
    /// block's start: the smallest of them and the last (RFC 7541 §4.2), so the server's table shrinks as far as it did.
    private var pendingCapacity: (smallest: Int, last: Int)?

    /// The server's SETTINGS_HEADER_TABLE_SIZE: the table may use no more than it.
    mutating func serverAnnouncedTableSize(_ size: Int) {
        let capacity = min(4096, size)
        pendingCapacity = (min(pendingCapacity?.smallest ?? table.capacity, capacity), capacity)
    }

    /// Appends the header block of `fields`, in their order, to `buffer`.
    mutating func encode(_ fields: [(name: String, value: String)], into buffer: inout ByteBuffer) {
        var room = 8
        for (name, value) in fields { room += name.utf8.count + value.utf8.count + 16 }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { out in
            var writer = HPACKWriter(out: out)
            if let (smallest, last) = pendingCapacity {
                // Dynamic table size updates (RFC 7541 §6.3): the smallest announced when below the table's size, then
                // the last when it differs from that.
                var updates: [Int] = []
                if smallest < table.capacity { updates.append(smallest) }
                if last != (updates.last ?? table.capacity) { updates.append(last) }
                for capacity in updates {
                    writer.integer(capacity, prefix: 5, flags: 0x20)
                    table.resize(to: capacity)
                }
                pendingCapacity = nil
                lastBlock.removeAll()
            }
            if lastBlock.count != fields.count { lastBlock = Array(repeating: .unknown, count: fields.count) }
            for (place, (name, value)) in fields.enumerated() {
                let sent = encode(name: name, value: value, as: lastBlock[place], with: &writer)
                if case .inserted = sent {
                    // Every index remembered is one off now, this block's earlier places' too.
                    for other in lastBlock.indices { if case .index = lastBlock[other] { lastBlock[other] = .unknown } }
                }
                lastBlock[place] = sent
            }
            return writer.count
        }
    }

    /// Writes one field, the way the same place of the last block was sent when it is the same field.
    private mutating func encode(name: String, value: String, as last: Sent, with writer: inout HPACKWriter) -> Sent {
        switch last {
        case .index(let index, name, value):
            writer.integer(index, prefix: 7, flags: 0x80)
            return .index(index, name: name, value: value)
        case .literal(let nameIndex, name):
            writeLiteral(name: name, nameIndex: nameIndex, value: value, indexing: false, with: &writer)
            return .literal(nameIndex: nameIndex, name: name)
        case .index, .literal, .inserted, .unknown:
            break
        }
        if let index = Self.staticFieldIndex(name: name, value: value) {
            writer.integer(index, prefix: 7, flags: 0x80)  // indexed field
            return .index(index, name: name, value: value)
        }
        let indexes = Self.repeats(name)
        if indexes, let index = table.dynamicIndex(name: name, value: value) {
            writer.integer(index, prefix: 7, flags: 0x80)
            return .index(index, name: name, value: value)
        }
        let nameIndex = Self.staticNameIndex(name)
        writeLiteral(name: name, nameIndex: nameIndex, value: value, indexing: indexes, with: &writer)
        guard indexes else { return .literal(nameIndex: nameIndex, name: name) }
        table.insert(HPACKTable.Field(name: name, value: value))
        return .inserted
    }

    /// A literal with incremental indexing (01, six-bit name index) or without indexing (0000, four-bit).
    private func writeLiteral(name: String, nameIndex: Int?, value: String, indexing: Bool, with writer: inout HPACKWriter) {
        let (prefix, flags): (Int, UInt8) = indexing ? (6, 0x40) : (4, 0x00)
        if let nameIndex {
            writer.integer(nameIndex, prefix: prefix, flags: flags)
        } else {
            writer.integer(0, prefix: prefix, flags: flags)
            writer.string(name)
        }
        writer.string(value)
    }

    /// Whether a field of this name keeps its value across requests, and so is worth a place in the table.
    private static func repeats(_ name: String) -> Bool {
        switch name {
        case ":path", "apns-id", "apns-request-id", "apns-expiration", "content-length": false
        default: true
        }
    }

    /// The static table's entries requests send whole (RFC 7541 Appendix A).
    private static func staticFieldIndex(name: String, value: String) -> Int? {
        switch (name, value) {
        case (":method", "GET"): 2
        case (":method", "POST"): 3
        case (":scheme", "http"): 6
        case (":scheme", "https"): 7
        default: nil
        }
    }

    /// The first static entry named `name`, for the names requests use.
    private static func staticNameIndex(_ name: String) -> Int? {
        switch name {
        case ":authority": 1
        case ":method": 2
        case ":path": 4
        case ":scheme": 6
        case "authorization": 23
        case "content-length": 28
        case "content-type": 31
        default: nil
        }
    }
}
