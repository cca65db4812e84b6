/// One box (atom) of an ISO base media (MPEG-4) file.
package struct MP4Box: Equatable, Sendable {
    /// The four-character type, like "moov".
    package var type: String
    /// Where the box starts (its size field).
    package var offset: UInt64
    /// The whole box, header included.
    package var size: UInt64
    /// The header's length: 8, or 16 with a 64-bit size.
    package var headerSize: UInt64

    package var payloadOffset: UInt64 { offset + headerSize }
    package var payloadSize: UInt64 { size - headerSize }
}

/// The movie header (`moov/mvhd`): the movie's time scale and duration.
package struct MP4MovieHeader: Equatable, Sendable {
    /// Time units per second.
    package var timescale: UInt32
    /// The length in `timescale` units; nil when the file says it is unknown (all ones).
    package var duration: UInt64?

    /// The length in seconds, when known.
    package var seconds: Double? {
        duration.map { Double($0) / Double(timescale) }
    }
}

/// Reads the box structure of MPEG-4 files (ISO/IEC 14496-12).
package enum MP4 {
    /// The boxes laid end to end from `start` to `end`; throws `attachmentCorrupt` when one is malformed or
    /// runs past `end` (a truncated file).
    package static func boxes(in reader: any ByteReader, from start: UInt64, to end: UInt64) throws(UNError) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset = start
        while offset < end {
            guard boxes.count < 100_000 else { throw corrupt("has too many boxes") }
            let header = try reader.bytes(at: offset, count: 16)
            guard header.count >= 8, offset + 8 <= end else { throw corrupt("ends inside a box header") }
            let type = AttachmentSniffer.ascii(header[4..<8])
            var size = UInt64(bigEndian: header, at: 0, count: 4)
            var headerSize: UInt64 = 8
            if size == 1 {
                guard header.count >= 16 else { throw corrupt("ends inside the '\(type)' box header") }
                size = UInt64(bigEndian: header, at: 8, count: 8)
                headerSize = 16
            } else if size == 0 {
                size = end - offset  // the box runs to the end
            }
            guard size >= headerSize else { throw corrupt("has a '\(type)' box smaller than its header") }
            guard size <= end - offset else { throw corrupt("has a '\(type)' box that runs past the end: the file is truncated") }
            boxes.append(MP4Box(type: type, offset: offset, size: size, headerSize: headerSize))
            offset += size
        }
        return boxes
    }

    /// The boxes inside `box`.
    package static func children(of box: MP4Box, in reader: any ByteReader) throws(UNError) -> [MP4Box] {
        try boxes(in: reader, from: box.payloadOffset, to: box.offset + box.size)
    }

    /// The movie header; throws `attachmentCorrupt` when the file is truncated or has no `moov/mvhd`.
    package static func movieHeader(in reader: any ByteReader) throws(UNError) -> MP4MovieHeader {
        let top = try boxes(in: reader, from: 0, to: reader.size)
        guard let moov = top.first(where: { $0.type == "moov" }) else { throw corrupt("has no movie box ('moov')") }
        guard let mvhd = try children(of: moov, in: reader).first(where: { $0.type == "mvhd" }) else {
            throw corrupt("has no movie header ('mvhd')")
        }
        let payload = try reader.bytes(at: mvhd.payloadOffset, count: Int(min(mvhd.payloadSize, 32)))
        guard let version = payload.first else { throw corrupt("has an empty movie header") }
        // version 0: flags(3) creation(4) modification(4) timescale(4) duration(4)
        // version 1: flags(3) creation(8) modification(8) timescale(4) duration(8)
        let (timescaleAt, durationAt, durationLength) = version == 1 ? (20, 24, 8) : (12, 16, 4)
        guard version <= 1, payload.count >= durationAt + durationLength else { throw corrupt("has a malformed movie header") }
        let timescale = UInt32(UInt64(bigEndian: payload, at: timescaleAt, count: 4))
        guard timescale > 0 else { throw corrupt("has a movie header with a zero time scale") }
        let duration = UInt64(bigEndian: payload, at: durationAt, count: durationLength)
        let unknown: UInt64 = durationLength == 8 ? .max : UInt64(UInt32.max)
        return MP4MovieHeader(timescale: timescale, duration: duration == unknown ? nil : duration)
    }

    /// The handler types of the movie's tracks (`moov/trak/mdia/hdlr`): "vide", "soun", "text", …
    package static func handlerTypes(in reader: any ByteReader) throws(UNError) -> [String] {
        let top = try boxes(in: reader, from: 0, to: reader.size)
        guard let moov = top.first(where: { $0.type == "moov" }) else { return [] }
        var handlers: [String] = []
        for trak in try children(of: moov, in: reader) where trak.type == "trak" {
            for mdia in try children(of: trak, in: reader) where mdia.type == "mdia" {
                for hdlr in try children(of: mdia, in: reader) where hdlr.type == "hdlr" {
                    // version/flags(4) pre_defined(4) handler_type(4)
                    let payload = try reader.bytes(at: hdlr.payloadOffset, count: Int(min(hdlr.payloadSize, 12)))
                    if payload.count == 12 { handlers.append(AttachmentSniffer.ascii(payload[8..<12])) }
                }
            }
        }
        return handlers
    }

    private static func corrupt(_ problem: String) -> UNError {
        UNError(.attachmentCorrupt, "the MPEG-4 file \(problem)")
    }
}

extension UInt64 {
    /// A big-endian unsigned integer of `count` bytes at `offset` (the caller checks the bounds).
    init(bigEndian bytes: [UInt8], at offset: Int, count: Int) {
        self = bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A little-endian unsigned integer of `count` bytes at `offset` (the caller checks the bounds).
    init(littleEndian bytes: [UInt8], at offset: Int, count: Int) {
        self = bytes[offset..<(offset + count)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
