import ArgumentParser
import Foundation
import HeraldGateway
import HeraldHTTP2
import NIOCore
import NIOHPACK

/// The provider port's HPACK work, ours against swift-nio-http2's, on the blocks of a benchmark run: requests as
/// h2load sends them (the JWT never indexed, `:path` over 50 tokens round-robin through a 4 KB table, the rest
/// indexed) and answers of `:status` and the two ids. Each coder takes the same blocks in the same order.
struct HeaderCoding: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hpack",
        abstract: "Decode provider requests' header blocks and encode answers' with swift-nio-http2's coder and Herald's: ns per block."
    )

    @Option(help: "Blocks each way.")
    var blocks = 100_000

    @Option(help: "Passes; the median counts.")
    var passes = 5

    func validate() throws {
        guard blocks > 0, passes > 0 else { throw ValidationError("--blocks and --passes must be positive") }
    }

    func run() throws {
        let requests = try Self.requestBlocks(blocks)
        let decodeNIO = Self.median(passes) {
            var decoder = NIOHPACK.HPACKDecoder(allocator: ByteBufferAllocator())
            var fields = 0
            for var block in requests { fields += (try? decoder.decodeHeaders(from: &block))?.count ?? 0 }
            return fields
        }
        let decodeOurs = Self.median(passes) {
            var decoder = HeaderBlockDecoder()
            var fields = 0
            for block in requests {
                fields += (try? block.withUnsafeReadableBytes { (bytes) throws(HeaderBlockDecoder.Failure) in try decoder.decode(bytes) })?.count ?? 0
            }
            return fields
        }
        let answer: [(name: String, value: String)] = [
            ("apns-id", "6f1a1b0e-2c8b-4f5e-9d2a-0a9c3b1e7d41"), ("apns-unique-id", "0c9a7a52-7a3f-4b3e-8b5d-1f2e3d4c5b6a"),
        ]
        let encodeNIO = Self.median(passes) {
            var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
            var bytes = 0
            for _ in 0..<blocks {
                var headers = HPACKHeaders([(":status", "200")])
                for (name, value) in answer { headers.add(name: name, value: value, indexing: .nonIndexable) }
                try? encoder.beginEncoding(allocator: ByteBufferAllocator())
                try? encoder.append(headers: headers)
                bytes += (try? encoder.endEncoding())?.readableBytes ?? 0
            }
            return bytes
        }
        let encodeOurs = Self.median(passes) {
            var bytes = 0
            for _ in 0..<blocks {
                var buffer = ByteBuffer()
                ResponseHeaderEncoder.encode(status: 200, fields: answer, into: &buffer)
                bytes += buffer.readableBytes
            }
            return bytes
        }
        let perBlock = { (seconds: Double) in seconds / Double(blocks) * 1e9 }
        print("blocks             : \(blocks) each way, median of \(passes) passes")
        print(
            String(
                format: "decode a request   : swift-nio-http2 %6.0f ns, Herald %6.0f ns  (%.1fx)", perBlock(decodeNIO), perBlock(decodeOurs),
                decodeNIO / decodeOurs))
        print(
            String(
                format: "encode an answer   : swift-nio-http2 %6.0f ns, Herald %6.0f ns  (%.1fx)", perBlock(encodeNIO), perBlock(encodeOurs),
                encodeNIO / encodeOurs))
    }

    /// `count` request blocks as h2load writes them (nghttp2's choices, made with swift-nio-http2's encoder).
    private static func requestBlocks(_ count: Int) throws -> [ByteBuffer] {
        let jwt =
            "eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIS0VZMDEifQ." + String(repeating: "eyJpc3MiOiJCRU5DSFRFQU0xIiwiaWF0IjoxNzY0MzM5MjAwfQ", count: 1)
            + "." + String(repeating: "MEUCIQDx7", count: 10)
        let tokens = (0..<50).map { index in String(repeating: String(format: "%02x", index), count: 32) }
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
        var blocks: [ByteBuffer] = []
        blocks.reserveCapacity(count)
        for index in 0..<count {
            var headers = HPACKHeaders()
            headers.add(name: ":method", value: "POST")
            headers.add(name: ":path", value: "/3/device/" + tokens[index % tokens.count])
            headers.add(name: ":scheme", value: "https")
            headers.add(name: ":authority", value: "localhost:12197")
            headers.add(name: "authorization", value: "bearer " + jwt, indexing: .neverIndexed)
            headers.add(name: "apns-topic", value: "com.example.bench")
            headers.add(name: "apns-push-type", value: "alert")
            headers.add(name: "content-length", value: "103")
            headers.add(name: "user-agent", value: "h2load nghttp2/1.52.0")
            try encoder.beginEncoding(allocator: ByteBufferAllocator())
            try encoder.append(headers: headers)
            blocks.append(try encoder.endEncoding())
        }
        return blocks
    }

    /// The median time of `passes` runs of `work` (which returns something to keep its result alive).
    private static func median(_ passes: Int, _ work: () -> Int) -> Double {
        var times: [Double] = []
        var sink = 0
        for _ in 0..<passes {
            let start = ContinuousClock.now
            sink &+= work()
            let elapsed = ContinuousClock.now - start
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        if sink == -1 { print(sink) }
        return times.sorted()[times.count / 2]
    }
}
