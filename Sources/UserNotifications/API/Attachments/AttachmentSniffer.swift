/// What a file's first bytes say it is.
package enum SniffedFormat: Equatable, Sendable {
    /// The content identifies the format; extension and TypeHint are not consulted.
    case format(AttachmentFormat)
    /// The content fits several formats (or fits one only weakly): a TypeHint or the file's extension naming
    /// one of `candidates` decides, else `fallback`; with no fallback an unconfirmed guess is refused.
    case ambiguous(candidates: [AttachmentFormat], fallback: AttachmentFormat?)
    /// The content is of no supported format.
    case unknown
}

/// Identifies attachment formats by their magic bytes.
package enum AttachmentSniffer {
    /// How many leading bytes `sniff` looks at (besides MP4 boxes, which it walks).
    package static let headLength = 4096

    /// Sniffs the format of `reader`'s content.
    package static func sniff(_ reader: any ByteReader) throws(UNError) -> SniffedFormat {
        let head = try reader.bytes(at: 0, count: headLength)
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .format(.jpeg) }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .format(.png) }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .format(.gif) }
        if head.count >= 12 {
            let container = ascii(head[0..<4])
            let form = ascii(head[8..<12])
            switch (container, form) {
            case ("RIFF", "WAVE"): return .format(.wave)
            case ("RIFF", "AVI "): return .format(.avi)
            case ("FORM", "AIFF"), ("FORM", "AIFC"): return .format(.aiff)
            default: break
            }
            if ascii(head[4..<8]) == "ftyp" {
                return sniffMP4(reader, head: head)
            }
        }
        if let mpeg = sniffMPEG(head) { return mpeg }
        if head.starts(with: Array("ID3".utf8)), head.count >= 10, (2...4).contains(head[3]) { return .format(.mp3) }
        return sniffMP3Frames(head, fileSize: reader.size)
    }

    static func ascii(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static let audioBrands: Set<String> = ["M4A ", "M4B ", "M4P ", "F4A ", "F4B "]
    private static let videoBrands: Set<String> = ["M4V ", "M4VH", "M4VP", "F4V ", "F4P "]

    private static func sniffMP4(_ reader: any ByteReader, head: [UInt8]) -> SniffedFormat {
        let majorBrand = head.count >= 12 ? ascii(head[8..<12]) : ""
        if majorBrand == "qt  " { return .unknown }  // QuickTime movies are not among Apple's supported types
        if audioBrands.contains(majorBrand) { return .format(.mpeg4Audio) }
        if videoBrands.contains(majorBrand) { return .format(.mpeg4) }
        // A generic brand (isom, mp41, mp42, …): the tracks decide.
        if let handlers = try? MP4.handlerTypes(in: reader), !handlers.isEmpty {
            if handlers.contains("vide") { return .format(.mpeg4) }
            if handlers.allSatisfy({ $0 == "soun" }) { return .format(.mpeg4Audio) }
        }
        return .ambiguous(candidates: [.mpeg4, .mpeg4Audio], fallback: .mpeg4)
    }

    /// MPEG-1/2 program streams (pack header 00 00 01 BA) and video elementary streams (sequence header 00 00 01 B3).
    private static func sniffMPEG(_ head: [UInt8]) -> SniffedFormat? {
        guard head.count >= 5, head.starts(with: [0x00, 0x00, 0x01]) else { return nil }
        switch head[3] {
        case 0xBA:
            if head[4] & 0xC0 == 0x40 { return .format(.mpeg2Video) }
            if head[4] & 0xF0 == 0x20 { return .format(.mpeg) }
            return nil
        case 0xB3:
            // An MPEG-2 stream follows its sequence header with a sequence extension (00 00 01 B5).
            let hasExtension = head.indices.dropLast(3).contains { index in
                head[index] == 0 && head[index + 1] == 0 && head[index + 2] == 1 && head[index + 3] == 0xB5
            }
            return .format(hasExtension ? .mpeg2Video : .mpeg)
        default:
            return nil
        }
    }

    /// An MP3 without an ID3 tag starts with a frame header. Two headers in a row (or one frame that is the
    /// whole file) identify it; a single header might be chance, so it only confirms a hint or extension.
    private static func sniffMP3Frames(_ head: [UInt8], fileSize: UInt64) -> SniffedFormat {
        guard let length = MP3Frame.length(ofHeaderIn: head, at: 0) else { return .unknown }
        if UInt64(length) == fileSize || MP3Frame.length(ofHeaderIn: head, at: length) != nil {
            return .format(.mp3)
        }
        return .ambiguous(candidates: [.mp3], fallback: nil)
    }
}

/// MPEG audio Layer III frame headers.
enum MP3Frame {
    private static let mpeg1Bitrates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    private static let mpeg2Bitrates = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
    private static let sampleRates = [[44100, 48000, 32000], [22050, 24000, 16000], [11025, 12000, 8000]]

    /// The length in bytes of the Layer III frame whose header starts at `offset`, or nil when there is none.
    static func length(ofHeaderIn bytes: [UInt8], at offset: Int) -> Int? {
        guard offset >= 0, offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xE0 == 0xE0 else { return nil }
        let version = (bytes[offset + 1] >> 3) & 0x3  // 0: MPEG 2.5, 1: reserved, 2: MPEG 2, 3: MPEG 1
        let layer = (bytes[offset + 1] >> 1) & 0x3  // 1: Layer III
        let bitrateIndex = Int(bytes[offset + 2] >> 4)
        let sampleRateIndex = Int((bytes[offset + 2] >> 2) & 0x3)
        let padding = Int((bytes[offset + 2] >> 1) & 0x1)
        guard version != 1, layer == 1, (1...14).contains(bitrateIndex), sampleRateIndex != 3 else { return nil }
        let isMPEG1 = version == 3
        let bitrate = (isMPEG1 ? mpeg1Bitrates : mpeg2Bitrates)[bitrateIndex] * 1000
        let sampleRate = sampleRates[isMPEG1 ? 0 : (version == 2 ? 1 : 2)][sampleRateIndex]
        return (isMPEG1 ? 144 : 72) * bitrate / sampleRate + padding
    }
}
