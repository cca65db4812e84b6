/// What checking a file's structure learned about it.
package struct AttachmentMetadata: Equatable, Sendable {
    /// A movie's length in seconds, when the format tells it cheaply (MPEG-4, AVI) and the file knows it.
    package var duration: Double?
    /// An animated image's frame count (GIF).
    package var frameCount: Int?
}

/// Checks that a file of a known format is complete: the structure it promises is all there.
package enum AttachmentIntegrity {
    /// Throws `attachmentCorrupt` when the file is truncated or malformed for `format`.
    package static func check(_ reader: any ByteReader, as format: AttachmentFormat) throws(UNError) -> AttachmentMetadata {
        let size = reader.size
        switch format {
        case .jpeg:
            // Ends with the end-of-image marker (allowing a little padding after it).
            guard size >= 4, contains([0xFF, 0xD9], in: try tail(reader, 4096)) else {
                throw corrupt("JPEG image", "has no end-of-image marker: the file is truncated")
            }
        case .png:
            let header = try reader.bytes(at: 8, count: 8)
            guard header == [0, 0, 0, 13] + Array("IHDR".utf8) else { throw corrupt("PNG image", "has no image header") }
            guard contains(Array("IEND".utf8), in: try tail(reader, 4096)) else {
                throw corrupt("PNG image", "has no end chunk: the file is truncated")
            }
        case .gif:
            return AttachmentMetadata(frameCount: try GIF.frameCount(in: reader))
        case .wave, .avi:
            try checkContainerLength(reader, littleEndian: true, what: format == .wave ? "WAV audio" : "AVI movie")
            if format == .avi {
                return AttachmentMetadata(duration: try aviDuration(reader))
            }
        case .aiff:
            try checkContainerLength(reader, littleEndian: false, what: "AIFF audio")
        case .mp3:
            try checkMP3(reader)
        case .mpeg4, .mpeg4Audio:
            return AttachmentMetadata(duration: try MP4.movieHeader(in: reader).seconds)
        case .mpeg, .mpeg2Video:
            guard size >= 12 else { throw corrupt("MPEG stream", "is shorter than its first header") }
        }
        return AttachmentMetadata()
    }

    private static func corrupt(_ what: String, _ problem: String) -> UNError {
        UNError(.attachmentCorrupt, "the \(what) \(problem)")
    }

    private static func tail(_ reader: any ByteReader, _ count: UInt64) throws(UNError) -> [UInt8] {
        let start = reader.size > count ? reader.size - count : 0
        return try reader.bytes(at: start, count: Int(reader.size - start))
    }

    private static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// RIFF (little-endian) and FORM (big-endian) files give their length after the first four bytes.
    private static func checkContainerLength(_ reader: any ByteReader, littleEndian: Bool, what: String) throws(UNError) {
        let header = try reader.bytes(at: 0, count: 12)
        guard header.count == 12 else { throw corrupt(what, "is shorter than its header") }
        let length = littleEndian ? UInt64(littleEndian: header, at: 4, count: 4) : UInt64(bigEndian: header, at: 4, count: 4)
        // 0 and 0xFFFFFFFF are what streaming writers leave when they never learned the length.
        guard length == 0 || length == 0xFFFF_FFFF || length + 8 <= reader.size else {
            throw corrupt(what, "declares \(length + 8) bytes but has \(reader.size): the file is truncated")
        }
    }

    private static func checkMP3(_ reader: any ByteReader) throws(UNError) {
        let head = try reader.bytes(at: 0, count: 10)
        if head.starts(with: Array("ID3".utf8)) {
            guard head.count == 10 else { throw corrupt("MP3 audio", "ends inside its ID3 tag header") }
            // Tag size: four 7-bit bytes; a footer (flag bit 4) adds 10 more.
            let tagSize = head[6..<10].reduce(UInt64(0)) { $0 << 7 | UInt64($1 & 0x7F) }
            let end = 10 + tagSize + (head[5] & 0x10 != 0 ? 10 : 0)
            guard end < reader.size else { throw corrupt("MP3 audio", "ends inside its ID3 tag, before any audio") }
        } else if head.count < 4 {
            throw corrupt("MP3 audio", "is shorter than a frame header")
        }
    }

    /// An AVI's length from its main header (`hdrl/avih`): microseconds per frame × total frames.
    private static func aviDuration(_ reader: any ByteReader) throws(UNError) -> Double? {
        let head = try reader.bytes(at: 0, count: 88)
        guard head.count >= 56 + 32, AttachmentSniffer.ascii(head[12..<16]) == "LIST",
            AttachmentSniffer.ascii(head[20..<24]) == "hdrl", AttachmentSniffer.ascii(head[24..<28]) == "avih"
        else { throw corrupt("AVI movie", "has no main header ('hdrl/avih')") }
        let microsecondsPerFrame = UInt64(littleEndian: head, at: 32, count: 4)
        let totalFrames = UInt64(littleEndian: head, at: 48, count: 4)
        guard microsecondsPerFrame > 0 else { return nil }
        return Double(microsecondsPerFrame) * Double(totalFrames) / 1_000_000
    }
}
