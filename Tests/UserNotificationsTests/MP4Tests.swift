import HeraldTesting
import Testing

@testable import UserNotifications

@Suite struct MP4Tests {
    @Test(arguments: [UInt8(0), 1])
    func readsTheMovieHeader(version: UInt8) throws {
        let reader = MemoryByteReader(AttachmentFixtures.mp4(version: version, timescale: 90_000, duration: 450_000))
        let header = try MP4.movieHeader(in: reader)
        #expect(header == MP4MovieHeader(timescale: 90_000, duration: 450_000))
        #expect(header.seconds == 5)
    }

    @Test func unknownDurationsAreNil() throws {
        #expect(try MP4.movieHeader(in: MemoryByteReader(AttachmentFixtures.mp4(version: 0, duration: UInt64(UInt32.max)))).duration == nil)
        #expect(try MP4.movieHeader(in: MemoryByteReader(AttachmentFixtures.mp4(version: 1, duration: UInt64.max))).seconds == nil)
    }

    @Test func walksLargeSizeAndToTheEndBoxes() throws {
        let largeSize =
            AttachmentFixtures.bigEndian32(1) + AttachmentFixtures.ascii("free") + AttachmentFixtures.bigEndian64(24)
            + [UInt8](repeating: 0, count: 8)
        let toTheEnd = AttachmentFixtures.bigEndian32(0) + AttachmentFixtures.ascii("mdat") + [1, 2, 3]
        let bytes = AttachmentFixtures.ftyp("isom") + largeSize + toTheEnd
        let boxes = try MP4.boxes(in: MemoryByteReader(bytes), from: 0, to: UInt64(bytes.count))
        #expect(boxes.map(\.type) == ["ftyp", "free", "mdat"])
        #expect(boxes[1].headerSize == 16 && boxes[1].size == 24 && boxes[1].payloadSize == 8)
        #expect(boxes[2].size == 11 && boxes[2].payloadOffset == boxes[2].offset + 8)
    }

    @Test(arguments: [
        Array(AttachmentFixtures.mp4().dropLast(1)),  // mdat runs past the end
        AttachmentFixtures.bigEndian32(4) + AttachmentFixtures.ascii("free"),  // smaller than its header
        AttachmentFixtures.ftyp("isom") + [0, 0, 0],  // ends inside a header
        AttachmentFixtures.bigEndian32(1) + AttachmentFixtures.ascii("free") + [0, 0],  // ends inside a 64-bit size
    ])
    func malformedBoxesAreCorrupt(bytes: [UInt8]) {
        let error = #expect(throws: UNError.self) { try MP4.boxes(in: MemoryByteReader(bytes), from: 0, to: UInt64(bytes.count)) }
        #expect(error?.code == .attachmentCorrupt)
    }

    @Test func handlerTypesListTheTracks() throws {
        #expect(try MP4.handlerTypes(in: MemoryByteReader(AttachmentFixtures.mp4(handlers: ["vide", "soun", "text"]))) == ["vide", "soun", "text"])
        #expect(try MP4.handlerTypes(in: MemoryByteReader(AttachmentFixtures.ftyp("isom"))) == [])
    }

    @Test func sniffingDecidesByBrandThenTracks() throws {
        #expect(try AttachmentSniffer.sniff(MemoryByteReader(AttachmentFixtures.mp4(brand: "M4A ", handlers: ["vide"]))) == .format(.mpeg4Audio))
        #expect(try AttachmentSniffer.sniff(MemoryByteReader(AttachmentFixtures.mp4(brand: "mp42", handlers: ["soun"]))) == .format(.mpeg4Audio))
        #expect(try AttachmentSniffer.sniff(MemoryByteReader(AttachmentFixtures.mp4(brand: "mp42", handlers: ["soun", "vide"]))) == .format(.mpeg4))
        #expect(
            try AttachmentSniffer.sniff(MemoryByteReader(AttachmentFixtures.mp4(brand: "mp42", handlers: [])))
                == .ambiguous(candidates: [.mpeg4, .mpeg4Audio], fallback: .mpeg4))
        #expect(try AttachmentSniffer.sniff(MemoryByteReader(AttachmentFixtures.mp4(brand: "qt  "))) == .unknown)
    }

    @Test func mp3FrameLengths() {
        #expect(MP3Frame.length(ofHeaderIn: AttachmentFixtures.mp3FrameHeader, at: 0) == 417)
        #expect(MP3Frame.length(ofHeaderIn: [0xFF, 0xFB, 0x92, 0x64], at: 0) == 418)  // padded
        #expect(MP3Frame.length(ofHeaderIn: [0xFF, 0xF3, 0x90, 0x64], at: 0) == 72 * 80_000 / 22_050)  // MPEG-2, 80 kbit/s, 22.05 kHz
        #expect(MP3Frame.length(ofHeaderIn: [0xFF, 0xF1, 0x50, 0x80], at: 0) == nil)  // AAC ADTS, not Layer III
        #expect(MP3Frame.length(ofHeaderIn: [0xFF, 0xFB, 0xF0, 0x64], at: 0) == nil)  // bad bitrate index
    }
}
