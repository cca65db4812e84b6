/// Decodes the header blocks one HTTP/2 connection receives (RFC 7541), keeping the connection's dynamic table.
///
/// Part of the provider port's own HTTP/2 layer (issue 40): callgrind counted 16,400 instructions per request in
/// swift-nio-http2's Huffman decoding alone, with a lazily initialised global table reached for every byte.
package struct HeaderBlockDecoder {
    package enum Failure: Error, Equatable {
        /// The block breaks RFC 7541: a connection error of type COMPRESSION_ERROR (RFC 9113 §4.3), after which the
        /// two ends' tables can no longer agree.
        case malformed(String)
        /// The decoded fields exceed the largest header list announced. The whole block was still read, so the
        /// table stays in step and only this request need be refused.
        case listTooLarge
    }

    /// SETTINGS_HEADER_TABLE_SIZE as announced: the most a size update may ask for.
    let maximumTableSize: Int
    /// SETTINGS_MAX_HEADER_LIST_SIZE as announced, counted as RFC 9113 §6.5.2 does (name + value + 32 per field).
    let maximumListSize: Int
    package private(set) var table: HPACKTable

    package init(maximumTableSize: Int = 4096, maximumListSize: Int = 16_384) {
        self.maximumTableSize = maximumTableSize
        self.maximumListSize = maximumListSize
        table = HPACKTable(capacity: maximumTableSize)
    }

    /// The fields of one complete header block (HEADERS and any CONTINUATION frames' fragments together), in order.
    package mutating func decode(_ block: UnsafeRawBufferPointer) throws(Failure) -> [(name: String, value: String)] {
        var reader = Reader(bytes: block)
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(12)
        let staticFields = HPACKTable.staticFields
        var listSize = 0
        var seenField = false
        while let first = reader.peek() {
            let field: HPACKTable.Field
            if first & 0x80 != 0 {  // indexed field
                let index = try reader.integer(prefix: 7)
                guard let indexed = table.field(at: index, staticFields: staticFields) else {
                    throw .malformed("index \(index) names no field")
                }
                field = indexed
            } else if first & 0xE0 == 0x20 {  // dynamic table size update
                guard !seenField else { throw .malformed("a table size update after a field") }
                let capacity = try reader.integer(prefix: 5)
                guard capacity <= maximumTableSize else {
                    throw .malformed("a table size of \(capacity), above the \(maximumTableSize) announced")
                }
                table.resize(to: capacity)
                continue
            } else {
                // A literal: with incremental indexing (01), without indexing (0000) or never indexed (0001).
                let indexing = first & 0xC0 == 0x40
                let nameIndex = try reader.integer(prefix: indexing ? 6 : 4)
                let name: String
                if nameIndex == 0 {
                    name = try reader.string()
                } else if let indexed = table.field(at: nameIndex, staticFields: staticFields) {
                    name = indexed.name
                } else {
                    throw .malformed("index \(nameIndex) names no field")
                }
                field = HPACKTable.Field(name: name, value: try reader.string())
                if indexing { table.insert(field) }
            }
            seenField = true
            listSize += field.size
            if listSize <= maximumListSize { fields.append((field.name, field.value)) }
        }
        if listSize > maximumListSize { throw .listTooLarge }
        return fields
    }

    /// Reads RFC 7541's primitives off a block.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

        /// An integer with an N-bit prefix (RFC 7541 §5.1), at most 2^31 - 1.
        mutating func integer(prefix bits: Int) throws(Failure) -> Int {
            guard position < bytes.count else { throw .malformed("the block ends inside an integer") }
            let mask = (1 << bits) - 1
            var value = Int(bytes[position]) & mask
            position += 1
            guard value == mask else { return value }
            var shift = 0
            while true {
                guard position < bytes.count else { throw .malformed("the block ends inside an integer") }
                let byte = bytes[position]
                position += 1
                value += Int(byte & 0x7F) << shift
                guard value <= Int(Int32.max) else { throw .malformed("an integer above 2^31") }
                if byte & 0x80 == 0 { return value }
                shift += 7
                guard shift <= 28 else { throw .malformed("an integer of more than five bytes") }
            }
        }

        /// A string literal (RFC 7541 §5.2), Huffman-coded or not.
        mutating func string() throws(Failure) -> String {
            guard let first = peek() else { throw .malformed("the block ends before a string") }
            let length = try integer(prefix: 7)
            guard length <= bytes.count - position else { throw .malformed("a string runs past the block") }
            let raw = UnsafeRawBufferPointer(rebasing: bytes[position..<position + length])
            position += length
            guard first & 0x80 != 0 else { return String(decoding: raw, as: UTF8.self) }
            guard let text = HPACKHuffman.decode(raw) else { throw .malformed("a string's Huffman code is invalid") }
            return text
        }
    }
}
