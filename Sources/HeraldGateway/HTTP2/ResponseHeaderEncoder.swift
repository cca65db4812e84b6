package import HeraldHTTP2
package import NIOCore

/// Writes the header block of an answer (RFC 7541) without touching the client's dynamic table: `:status` from the
/// static table where it is there, every other field as a literal that is not indexed, its name from the static table
/// where it is there, and no Huffman coding. Nothing is added to the client's table, so no state need be kept or
/// agreed on, and each answer costs copies of its bytes (a few more of them than Huffman coding would send).
///
/// Part of the provider port's own HTTP/2 layer (issue 40): swift-nio-http2's encoder took 16,900 instructions per
/// answer of `:status`, `apns-id` and `apns-unique-id`, most of them Huffman-coding the two ids bit by bit.
package enum ResponseHeaderEncoder {
    package static func encode(status: Int, fields: [(name: String, value: String)], into buffer: inout ByteBuffer) {
        // Room for the longest form of everything: a few bytes per integer, then the strings' bytes.
        var room = 8
        for (name, value) in fields { room += name.utf8.count + value.utf8.count + 16 }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { out in
            var writer = HPACKWriter(out: out)
            if let index = staticStatusIndex(status) {
                writer.integer(index, prefix: 7, flags: 0x80)  // indexed field
            } else {
                writer.integer(8, prefix: 4, flags: 0x00)  // literal, not indexed, named by `:status`'s index (8)
                writer.string(String(status))
            }
            for (name, value) in fields {
                if let index = staticNameIndex(name) {
                    writer.integer(index, prefix: 4, flags: 0x00)
                } else {
                    writer.integer(0, prefix: 4, flags: 0x00)
                    writer.string(name)
                }
                writer.string(value)
            }
            return writer.count
        }
    }

    /// The static table's `:status` entries (RFC 7541 Appendix A).
    private static func staticStatusIndex(_ status: Int) -> Int? {
        switch status {
        case 200: 8
        case 204: 9
        case 206: 10
        case 304: 11
        case 400: 12
        case 404: 13
        case 500: 14
        default: nil
        }
    }

    /// The first static entry named `name`, for the names answers use.
    private static func staticNameIndex(_ name: String) -> Int? {
        switch name {
        case "content-type": 31
        case "content-length": 28
        case "retry-after": 53
        case "date": 33
        default: nil
        }
    }
}

extension FrameWriter {
    /// An answer's HEADERS, its block written by ``ResponseHeaderEncoder`` (one frame: answers are far below the
    /// smallest frame size a client may announce).
    package static func responseHeaders(
        stream: UInt32, status: Int, fields: [(name: String, value: String)], endStream: Bool, into buffer: inout ByteBuffer
    ) {
        let flags = FrameHeader.Flag.endHeaders | (endStream ? FrameHeader.Flag.endStream : 0)
        frame(.headers, flags: flags, stream: stream, into: &buffer) { buffer in
            ResponseHeaderEncoder.encode(status: status, fields: fields, into: &buffer)
        }
    }
}
