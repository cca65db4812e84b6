/// HPACK's Huffman code (RFC 7541 Appendix B), decoded four bits at a time.
///
/// The code is canonical, so each symbol's code length determines the codes. Decoding walks a state machine built
/// once from them: a state is a node of the code's tree (256 of them), and each state has a transition for each of the
/// 16 values of the next four bits, saying where the walk ends and which symbol (at most one: no code is shorter than
/// five bits) it completed on the way. A byte costs two table reads instead of eight branches.
package enum HPACKHuffman {
    /// The length in bits of the code of each symbol 0...255 and of EOS (256).
    package static let codeLengths: [UInt8] = [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
        28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
        7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
        24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
        21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
        19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
        26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        30,
    ]

    package static let endOfString = 256

    /// Each symbol's code: shorter codes first, codes of one length in symbol order (RFC 7541's code is built so).
    package static var codes: [UInt32] {
        let order = (0...256).sorted { (codeLengths[$0], $0) < (codeLengths[$1], $1) }
        var codes = [UInt32](repeating: 0, count: 257)
        var code: UInt32 = 0
        for (rank, symbol) in order.enumerated() where rank > 0 {
            code = (code + 1) << (codeLengths[symbol] - codeLengths[order[rank - 1]])
            codes[symbol] = code
        }
        return codes
    }

    /// One transition: where four bits lead from a state, packed as `next | symbol << 8 | flags << 16`.
    private struct Transition {
        static let emits: UInt32 = 1 << 16
        static let fails: UInt32 = 1 << 17
        /// The walk ends where the string may end: on bits that are all ones, fewer than eight, since the last
        /// symbol (a prefix of EOS, RFC 7541 §5.2).
        static let accepts: UInt32 = 1 << 18
    }

    /// 256 states × 16 transitions.
    private static let transitions: [UInt32] = makeTransitions()

    private static func makeTransitions() -> [UInt32] {
        // The code's tree: node 0 is the root; a child is another node (>= 0) or a symbol s as -(s + 1).
        var children: [(Int, Int)] = [(0, 0)]
        var accepting = [true]
        let codes = self.codes
        for symbol in 0...256 {
            var node = 0
            let length = Int(codeLengths[symbol])
            for position in stride(from: length - 1, through: 0, by: -1) {
                let bit = (codes[symbol] >> UInt32(position)) & 1
                if position == 0 {
                    if bit == 0 { children[node].0 = -(symbol + 1) } else { children[node].1 = -(symbol + 1) }
                    break
                }
                var next = bit == 0 ? children[node].0 : children[node].1
                if next == 0 {
                    next = children.count
                    children.append((0, 0))
                    let depth = length - position
                    accepting.append(bit == 1 && accepting[node] && depth < 8)
                    if bit == 0 { children[node].0 = next } else { children[node].1 = next }
                }
                node = next
            }
        }
        precondition(children.count == 256, "RFC 7541's code has 256 inner nodes")
        var table = [UInt32](repeating: 0, count: 256 * 16)
        for state in 0..<256 {
            for nibble in 0..<16 {
                var node = state
                var entry: UInt32 = 0
                for position in stride(from: 3, through: 0, by: -1) {
                    let child = (nibble >> position) & 1 == 0 ? children[node].0 : children[node].1
                    if child >= 0 {
                        node = child
                        continue
                    }
                    let symbol = -child - 1
                    if symbol == endOfString {
                        entry |= Transition.fails
                        break
                    }
                    entry |= Transition.emits | UInt32(symbol) << 8
                    node = 0
                }
                entry |= UInt32(node)
                if accepting[node] { entry |= Transition.accepts }
                table[state * 16 + nibble] = entry
            }
        }
        return table
    }

    /// The text `bytes` encode, or nil when they are not a valid encoding: EOS inside, or padding that is longer
    /// than seven bits or not all ones (RFC 7541 §5.2).
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> String? {
        var valid = true
        let text = transitions.withUnsafeBufferPointer { table in
            String(unsafeUninitializedCapacity: bytes.count * 8 / 5 + 1) { out in
                var entry = Transition.accepts  // state 0, where an empty string ends
                var count = 0
                for byte in bytes {
                    for nibble in 0..<2 {
                        entry = table[Int(entry & 0xFF) << 4 | Int(nibble == 0 ? byte >> 4 : byte & 0x0F)]
                        if entry & Transition.fails != 0 {
                            valid = false
                            return 0
                        }
                        if entry & Transition.emits != 0 {
                            out[count] = UInt8(truncatingIfNeeded: entry >> 8)
                            count += 1
                        }
                    }
                }
                valid = entry & Transition.accepts != 0
                return count
            }
        }
        return valid ? text : nil
    }
}
