/// Writes RFC 7541's primitives into memory the caller made room in.
package struct HPACKWriter {
    package let out: UnsafeMutableRawBufferPointer
    package private(set) var count = 0

    package init(out: UnsafeMutableRawBufferPointer) {
        self.out = out
    }

    /// An integer with an N-bit prefix (RFC 7541 §5.1) in a first byte that carries `flags` above the prefix.
    package mutating func integer(_ value: Int, prefix bits: Int, flags: UInt8) {
        let mask = (1 << bits) - 1
        guard value >= mask else {
            byte(flags | UInt8(value))
            return
        }
        byte(flags | UInt8(mask))
        var rest = value - mask
        while rest >= 0x80 {
            byte(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        byte(UInt8(rest))
    }

    /// A string literal without Huffman coding (RFC 7541 §5.2).
    package mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            integer(bytes.count, prefix: 7, flags: 0x00)
            UnsafeMutableRawBufferPointer(rebasing: out[count..<count + bytes.count]).copyMemory(from: UnsafeRawBufferPointer(bytes))
            count += bytes.count
        }
    }

    private mutating func byte(_ value: UInt8) {
        out[count] = value
        count += 1
    }
}
