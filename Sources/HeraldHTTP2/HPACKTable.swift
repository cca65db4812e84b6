import NIOCore

/// The header fields an HPACK index can name (RFC 7541 §2.3): the static table's 61, then the connection's dynamic
/// table, newest first.
package struct HPACKTable {
    package struct Field {
        package var name: String
        package var value: String
        /// RFC 7541 §4.1: the bytes of name and value, and 32 for the entry's bookkeeping.
        package var size: Int { name.utf8.count + value.utf8.count + 32 }

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// RFC 7541 Appendix A; index 1 is the first.
    package static let staticFields: [Field] = [
        (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"), (":path", "/index.html"),
        (":scheme", "http"), (":scheme", "https"), (":status", "200"), (":status", "204"), (":status", "206"),
        (":status", "304"), (":status", "400"), (":status", "404"), (":status", "500"), ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"), ("accept-language", ""), ("accept-ranges", ""), ("accept", ""),
        ("access-control-allow-origin", ""), ("age", ""), ("allow", ""), ("authorization", ""), ("cache-control", ""),
        ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""), ("content-length", ""),
        ("content-location", ""), ("content-range", ""), ("content-type", ""), ("cookie", ""), ("date", ""),
        ("etag", ""), ("expect", ""), ("expires", ""), ("from", ""), ("host", ""), ("if-match", ""),
        ("if-modified-since", ""), ("if-none-match", ""), ("if-range", ""), ("if-unmodified-since", ""),
        ("last-modified", ""), ("link", ""), ("location", ""), ("max-forwards", ""), ("proxy-authenticate", ""),
        ("proxy-authorization", ""), ("range", ""), ("referer", ""), ("refresh", ""), ("retry-after", ""),
        ("server", ""), ("set-cookie", ""), ("strict-transport-security", ""), ("transfer-encoding", ""),
        ("user-agent", ""), ("vary", ""), ("via", ""), ("www-authenticate", ""),
    ].map { Field(name: $0.0, value: $0.1) }

    /// The connection's own entries, newest first.
    private var dynamic = CircularBuffer<Field>(initialCapacity: 64)
    /// The sum of the dynamic entries' sizes.
    package private(set) var size = 0
    /// The most the dynamic entries may take, as the encoder last set it.
    package private(set) var capacity: Int

    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// The field at `index` (1-based over both tables), or nil when there is none.
    package func field(at index: Int, staticFields: [Field]) -> Field? {
        if index >= 1 && index <= staticFields.count { return staticFields[index - 1] }
        let offset = index - staticFields.count - 1
        guard offset >= 0, offset < dynamic.count else { return nil }
        return dynamic[dynamic.index(dynamic.startIndex, offsetBy: offset)]
    }

    /// The index of the dynamic entry that holds exactly `name` and `value`, for an encoder that keeps its own copy of
    /// the table the other end builds.
    package func dynamicIndex(name: String, value: String) -> Int? {
        var index = Self.staticFields.count + 1
        for field in dynamic {
            if field.name == name && field.value == value { return index }
            index += 1
        }
        return nil
    }

    /// Adds `field` as the newest entry, evicting the oldest until it fits; a field larger than the whole table
    /// empties it and is not kept (RFC 7541 §4.4).
    package mutating func insert(_ field: Field) {
        let fieldSize = field.size
        evict(toFit: capacity - fieldSize)
        guard fieldSize <= capacity else { return }
        dynamic.prepend(field)
        size += fieldSize
    }

    /// A dynamic table size update (RFC 7541 §4.3).
    package mutating func resize(to newCapacity: Int) {
        capacity = newCapacity
        evict(toFit: newCapacity)
    }

    private mutating func evict(toFit limit: Int) {
        while size > max(0, limit), let oldest = dynamic.popLast() {
            size -= oldest.size
        }
    }
}
