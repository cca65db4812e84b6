import HeraldHTTP2
import NIOCore
import NIOHPACK
import Testing

@testable import HeraldGateway

/// The provider port's own HPACK coder: RFC 7541's examples, agreement with swift-nio-http2's coder on random
/// blocks, and every way a block can be malformed.
struct HPACKTests {
    private func decode(_ decoder: inout HeaderBlockDecoder, _ bytes: [UInt8]) throws(HeaderBlockDecoder.Failure) -> [(String, String)] {
        var result: Result<[(name: String, value: String)], HeaderBlockDecoder.Failure> = .success([])
        bytes.withUnsafeBytes { block in result = Result { () throws(HeaderBlockDecoder.Failure) in try decoder.decode(block) } }
        return try result.get().map { ($0.name, $0.value) }
    }

    private func failure(_ bytes: [UInt8], maximumListSize: Int = 16_384) -> HeaderBlockDecoder.Failure? {
        var decoder = HeaderBlockDecoder(maximumListSize: maximumListSize)
        do {
            _ = try decode(&decoder, bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func huffmanCodesAreRFC7541s() {
        let codes = HPACKHuffman.codes
        // A few of Appendix B's rows: '0' is 00000 (5 bits), 'a' 00011 (5), '~' 111111111111101 (13), EOS 30 ones.
        #expect(codes[Int(UInt8(ascii: "0"))] == 0b00000)
        #expect(codes[Int(UInt8(ascii: "a"))] == 0b00011)
        #expect(codes[Int(UInt8(ascii: "~"))] == 0x1FFD && HPACKHuffman.codeLengths[Int(UInt8(ascii: "~"))] == 13)
        #expect(codes[HPACKHuffman.endOfString] == 0x3FFF_FFFF && HPACKHuffman.codeLengths[HPACKHuffman.endOfString] == 30)
    }

    /// RFC 7541 C.4: three requests on one connection, Huffman-coded, each adding to the dynamic table.
    @Test func decodesTheRFCsRequestsWithHuffmanCoding() throws {
        var decoder = HeaderBlockDecoder()
        let first = try decode(&decoder, [0x82, 0x86, 0x84, 0x41, 0x8c, 0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff])
        #expect(first.elementsEqual([(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com")], by: ==))
        #expect(decoder.table.size == 57)
        let second = try decode(&decoder, [0x82, 0x86, 0x84, 0xbe, 0x58, 0x86, 0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf])
        #expect(second.last! == ("cache-control", "no-cache") && second.count == 5)
        #expect(decoder.table.size == 110)
        let third = try decode(
            &decoder,
            [
                0x82, 0x87, 0x85, 0xbf, 0x40, 0x88, 0x25, 0xa8, 0x49, 0xe9, 0x5b, 0xa9, 0x7d, 0x7f, 0x89, 0x25, 0xa8, 0x49,
                0xe9, 0x5b, 0xb8, 0xe8, 0xb4, 0xbf,
            ])
        #expect(
            third.elementsEqual(
                [
                    (":method", "GET"), (":scheme", "https"), (":path", "/index.html"), (":authority", "www.example.com"),
                    ("custom-key", "custom-value"),
                ],
                by: ==))
        #expect(decoder.table.size == 164)
    }

    /// RFC 7541 C.6: three responses with a 256-byte table, so later entries evict earlier ones.
    @Test func decodesTheRFCsResponsesWithEviction() throws {
        var decoder = HeaderBlockDecoder(maximumTableSize: 256)
        let first = try decode(
            &decoder,
            [
                0x48, 0x82, 0x64, 0x02, 0x58, 0x85, 0xae, 0xc3, 0x77, 0x1a, 0x4b, 0x61, 0x96, 0xd0, 0x7a, 0xbe, 0x94, 0x10,
                0x54, 0xd4, 0x44, 0xa8, 0x20, 0x05, 0x95, 0x04, 0x0b, 0x81, 0x66, 0xe0, 0x82, 0xa6, 0x2d, 0x1b, 0xff, 0x6e,
                0x91, 0x9d, 0x29, 0xad, 0x17, 0x18, 0x63, 0xc7, 0x8f, 0x0b, 0x97, 0xc8, 0xe9, 0xae, 0x82, 0xae, 0x43, 0xd3,
            ])
        #expect(
            first.elementsEqual(
                [
                    (":status", "302"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
                    ("location", "https://www.example.com"),
                ],
                by: ==))
        #expect(decoder.table.size == 222)
        let second = try decode(&decoder, [0x48, 0x83, 0x64, 0x0e, 0xff, 0xc1, 0xc0, 0xbf])
        #expect(second.first! == (":status", "307") && second.count == 4)
        #expect(decoder.table.size == 222)
        let third = try decode(
            &decoder,
            [
                0x88, 0xc1, 0x61, 0x96, 0xd0, 0x7a, 0xbe, 0x94, 0x10, 0x54, 0xd4, 0x44, 0xa8, 0x20, 0x05, 0x95, 0x04, 0x0b,
                0x81, 0x66, 0xe0, 0x84, 0xa6, 0x2d, 0x1b, 0xff, 0xc0, 0x5a, 0x83, 0x9b, 0xd9, 0xab, 0x77, 0xad, 0x94, 0xe7,
                0x82, 0x1d, 0xd7, 0xf2, 0xe6, 0xc7, 0xb3, 0x35, 0xdf, 0xdf, 0xcd, 0x5b, 0x39, 0x60, 0xd5, 0xaf, 0x27, 0x08,
                0x7f, 0x36, 0x72, 0xc1, 0xab, 0x27, 0x0f, 0xb5, 0x29, 0x1f, 0x95, 0x87, 0x31, 0x60, 0x65, 0xc0, 0x03, 0xed,
                0x4e, 0xe5, 0xb1, 0x06, 0x3d, 0x50, 0x07,
            ])
        #expect(
            third.elementsEqual(
                [
                    (":status", "200"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:22 GMT"),
                    ("location", "https://www.example.com"), ("content-encoding", "gzip"),
                    ("set-cookie", "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"),
                ], by: ==))
        #expect(decoder.table.size == 215)
    }

    /// Blocks swift-nio-http2's encoder writes (Huffman or not, every indexing choice, a small table so entries
    /// are evicted) decode to what its own decoder reads, block after block on one connection.
    @Test(arguments: [true, false])
    func agreesWithSwiftNIOOnRandomBlocks(huffman: Bool) throws {
        var generator = SeededGenerator(seed: huffman ? 7 : 11)
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: huffman, maxDynamicTableSize: 512)
        var theirs = NIOHPACK.HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 512)
        var ours = HeaderBlockDecoder(maximumTableSize: 512, maximumListSize: 1 << 20)
        let names = ["apns-id", "apns-topic", ":path", "authorization", "x-\(Int.random(in: 0...9, using: &generator))", "content-length"]
        for _ in 0..<300 {
            var headers = HPACKHeaders()
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let name = names.randomElement(using: &generator)!
                let length = Int.random(in: 0...120, using: &generator)
                // Every byte value, so every Huffman code is exercised; the strings stay UTF-8 by taking scalars.
                let value = String(
                    String.UnicodeScalarView((0..<length).map { _ in Unicode.Scalar(UInt8.random(in: 0x20...0xFF, using: &generator)) }))
                let indexing: HPACKIndexing = [.indexable, .nonIndexable, .neverIndexed].randomElement(using: &generator)!
                headers.add(name: name, value: value, indexing: indexing)
            }
            try encoder.beginEncoding(allocator: ByteBufferAllocator())
            try encoder.append(headers: headers)
            var block = try encoder.endEncoding()
            let ourFields = try block.withUnsafeReadableBytes { (bytes) throws(HeaderBlockDecoder.Failure) in try ours.decode(bytes) }
            let theirFields = try theirs.decodeHeaders(from: &block)
            #expect(ourFields.map { "\($0.name): \($0.value)" } == theirFields.map { "\($0.name): \($0.value)" })
        }
    }

    /// Every symbol, coded with the table's own codes (bit-packed here, padded with ones), decodes to its byte;
    /// bytes that are not UTF-8 become what `String(decoding:)` makes of them.
    @Test func everySymbolDecodes() {
        let codes = HPACKHuffman.codes
        func huffman(_ bytes: [UInt8]) -> [UInt8] {
            var bits: [Bool] = []
            for byte in bytes {
                let length = Int(HPACKHuffman.codeLengths[Int(byte)])
                bits += (0..<length).map { codes[Int(byte)] >> UInt32(length - 1 - $0) & 1 == 1 }
            }
            bits += Array(repeating: true, count: (8 - bits.count % 8) % 8)
            return stride(from: 0, to: bits.count, by: 8).map { start in
                bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
            }
        }
        for byte in UInt8.min...UInt8.max {
            let text = [byte, byte, byte]
            let decoded = huffman(text).withUnsafeBytes { HPACKHuffman.decode($0) }
            #expect(decoded == String(decoding: text, as: UTF8.self), "byte \(byte)")
        }
        let all = Array(UInt8.min...UInt8.max)
        #expect(huffman(all).withUnsafeBytes { HPACKHuffman.decode($0) } == String(decoding: all, as: UTF8.self))
    }

    @Test func malformedBlocksAreCompressionErrors() {
        // 0x00 literal without indexing, new name "a" (0x01 'a'), then the value's length and bytes.
        let literal: ([UInt8]) -> [UInt8] = { [0x00, 0x01, 0x61] + $0 }
        let cases: [(String, [UInt8])] = [
            ("index 0", [0x80]),
            ("an index past both tables", [0xBE]),  // 62 with an empty dynamic table
            ("a name index past both tables", [0x7F, 0x00, 0x01, 0x61]),
            ("a truncated integer", [0xFF, 0x80]),
            ("an integer above 2^31", [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
            ("an integer of six bytes", [0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
            ("a string past the block", literal([0x05, 0x61])),
            ("a block ending before a value", [0x00, 0x01, 0x61]),
            ("EOS inside a Huffman string", literal([0x84, 0xFF, 0xFF, 0xFF, 0xFF])),
            ("padding of eight bits", literal([0x82, 0x1F, 0xFF])),  // '0' (00000) then 11 ones
            ("padding with a zero bit", literal([0x81, 0x02])),  // '0' then 010
            ("a table size above the one announced", [0x3F, 0xE2, 0x1F]),  // 4,097
            ("a table size update after a field", [0x82, 0x20]),
        ]
        for (name, bytes) in cases {
            guard case .malformed = failure(bytes) else {
                Issue.record("\(name): expected a compression error, got \(String(describing: failure(bytes)))")
                continue
            }
        }
        #expect(failure(literal([0x81, 0x07])) == nil)  // '0' then 111: padding as RFC 7541 wants it
        #expect(failure([0x20, 0x3F, 0xE1, 0x1F, 0x82]) == nil)  // size updates (0, then 4,096) before the first field
    }

    /// A list over the limit is refused after the whole block was read: the table stays in step with the client's.
    @Test func anOversizedListKeepsTheTableInStep() throws {
        var decoder = HeaderBlockDecoder(maximumListSize: 100)
        // Literal with incremental indexing, new name "big" and a 100-byte value: 135 bytes against a limit of 100.
        let big: [UInt8] = [0x40, 0x03] + Array("big".utf8) + [0x64] + Array(repeating: UInt8(ascii: "v"), count: 100)
        #expect(throws: HeaderBlockDecoder.Failure.listTooLarge) { try decode(&decoder, big) }
        #expect(decoder.table.size == 135)
        #expect(decoder.table.field(at: 62, staticFields: HPACKTable.staticFields)?.name == "big")
    }

    /// Answers read back by swift-nio-http2's decoder as written, and leave its dynamic table empty.
    @Test(arguments: [200, 400, 404, 410, 429, 500, 503])
    func answersDecodeAndLeaveTheTableAlone(status: Int) throws {
        var buffer = ByteBuffer()
        let fields = [
            ("apns-id", "6f1a1b0e-2c8b-4f5e-9d2a-0a9c3b1e7d41"), ("apns-unique-id", "0c9a7a52-7a3f-4b3e-8b5d-1f2e3d4c5b6a"),
            ("content-type", "application/json"), ("retry-after", "1"), ("x-long", String(repeating: "é", count: 150)),
        ]
        ResponseHeaderEncoder.encode(status: status, fields: fields, into: &buffer)
        var ours = HeaderBlockDecoder()
        _ = try decode(&ours, Array(buffer.readableBytesView))
        #expect(ours.table.size == 0)
        var theirs = NIOHPACK.HPACKDecoder(allocator: ByteBufferAllocator())
        let decoded = try theirs.decodeHeaders(from: &buffer)
        #expect(decoded.map { "\($0.name): \($0.value)" } == [":status: \(status)"] + fields.map { "\($0.0): \($0.1)" })
    }

    @Test func integersUseTheirPrefixAndContinuationBytes() {
        func written(_ value: Int, prefix: Int, flags: UInt8) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 8)
            let count = bytes.withUnsafeMutableBytes { out in
                var writer = HPACKWriter(out: out)
                writer.integer(value, prefix: prefix, flags: flags)
                return writer.count
            }
            return Array(bytes.prefix(count))
        }
        #expect(written(1337, prefix: 5, flags: 0x00) == [0x1F, 0x9A, 0x0A])  // RFC 7541 C.1.2
        #expect(written(10, prefix: 5, flags: 0x20) == [0x2A])  // C.1.1, with flags above the prefix
        #expect(written(31, prefix: 5, flags: 0x00) == [0x1F, 0x00])  // exactly the prefix's maximum
    }
}

/// A repeatable source of randomness (SplitMix64).
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
