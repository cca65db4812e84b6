import HeraldHTTP2
import NIOCore
import Testing

@testable import HeraldGateway

/// The frame layer of the provider port's own HTTP/2 layer: frames cut from bytes however they arrive, the
/// preface, the size limit, padding, and what the writer writes read back.
struct FramesTests {
    private func bytes(_ array: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: array) }

    private func readAll(_ reader: inout FrameReader) throws(ConnectionFault) -> [(FrameHeader, [UInt8])] {
        var frames: [(FrameHeader, [UInt8])] = []
        while let (header, payload) = try reader.next() { frames.append((header, Array(payload.readableBytesView))) }
        return frames
    }

    @Test func framesComeWholeHoweverTheBytesArrive() throws {
        // SETTINGS with one setting (MAX_CONCURRENT_STREAMS = 100), then a PING, one byte at a time.
        let wire =
            FrameReader.preface + [0, 0, 6, 0x4, 0, 0, 0, 0, 0, 0, 0x3, 0, 0, 0, 100]
            + [0, 0, 8, 0x6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
        var reader = FrameReader()
        var frames: [(FrameHeader, [UInt8])] = []
        for byte in wire {
            var one = bytes([byte])
            reader.append(&one)
            frames += try readAll(&reader)
        }
        #expect(frames.count == 2)
        #expect(frames[0].0 == FrameHeader(length: 6, type: FrameType.settings.rawValue, flags: 0, streamID: 0))
        #expect(frames[0].1 == [0, 0x3, 0, 0, 0, 100])
        #expect(frames[1].0.knownType == .ping && frames[1].1 == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test func aConnectionWithoutThePrefaceIsAProtocolError() throws {
        var reader = FrameReader()
        var request = bytes(Array("GET / HTTP/1.1\r\n".utf8))
        reader.append(&request)
        #expect(throws: ConnectionFault.self) { try reader.next() }
        // A correct beginning waits for the rest.
        var partial = FrameReader()
        var start = bytes(Array(FrameReader.preface.prefix(10)))
        partial.append(&start)
        #expect(try partial.next() == nil)
    }

    @Test func aFrameAboveTheAnnouncedSizeIsAFrameSizeError() {
        var reader = FrameReader(maximumFrameSize: 16_384)
        var wire = bytes(FrameReader.preface + [0, 0x40, 0x01, 0x0, 0, 0, 0, 0, 1])  // DATA of 16,385 bytes
        reader.append(&wire)
        #expect(throws: ConnectionFault(code: .frameSizeError, reason: "a frame of 16385 bytes, above the 16384 announced")) {
            try reader.next()
        }
    }

    @Test func theReservedBitIsIgnoredAndUnknownTypesAreRead() throws {
        var reader = FrameReader()
        var wire = bytes(FrameReader.preface + [0, 0, 1, 0xFA, 0, 0x80, 0, 0, 3, 42])
        reader.append(&wire)
        let frames = try readAll(&reader)
        #expect(frames.count == 1 && frames[0].0.streamID == 3 && frames[0].0.knownType == nil && frames[0].1 == [42])
    }

    @Test func paddingIsTakenOffAndMustFitItsFrame() throws {
        let padded = try FrameReader.unpadded(bytes([2, 7, 7, 0, 0]), flags: FrameHeader.Flag.padded)
        #expect(Array(padded.readableBytesView) == [7, 7])
        #expect(Array(try FrameReader.unpadded(bytes([2, 7]), flags: 0).readableBytesView) == [2, 7])
        #expect(throws: ConnectionFault.self) { try FrameReader.unpadded(self.bytes([5, 7, 7]), flags: FrameHeader.Flag.padded) }
        #expect(throws: ConnectionFault.self) { try FrameReader.unpadded(self.bytes([]), flags: FrameHeader.Flag.padded) }
    }

    @Test func whatTheWriterWritesReadsBack() throws {
        var out = ByteBuffer(bytes: FrameReader.preface)
        FrameWriter.settings([(0x3, 1), (0x4, 1 << 20)], into: &out)
        FrameWriter.settingsAcknowledgement(into: &out)
        FrameWriter.pingAcknowledgement(0x0102_0304_0506_0708, into: &out)
        FrameWriter.goAway(lastStream: 7, code: .enhanceYourCalm, debugData: Array("calm".utf8), into: &out)
        FrameWriter.resetStream(9, code: .refusedStream, into: &out)
        FrameWriter.windowUpdate(stream: 0, increment: 65_535, into: &out)
        FrameWriter.responseHeaders(stream: 11, status: 200, fields: [("apns-id", "x")], endStream: true, into: &out)
        FrameWriter.data(stream: 13, ByteBuffer(bytes: [1, 2, 3]), endStream: true, into: &out)
        var reader = FrameReader()
        reader.append(&out)
        let frames = try readAll(&reader)
        #expect(frames.map { $0.0.knownType } == [.settings, .settings, .ping, .goAway, .resetStream, .windowUpdate, .headers, .data])
        #expect(frames[0].1 == [0, 3, 0, 0, 0, 1, 0, 4, 0, 0x10, 0, 0])
        #expect(frames[1].0.flags == FrameHeader.Flag.ack && frames[1].1.isEmpty)
        #expect(frames[2].0.flags == FrameHeader.Flag.ack && frames[2].1 == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(frames[3].1 == [0, 0, 0, 7, 0, 0, 0, 0xB] + Array("calm".utf8))
        #expect(frames[4].0.streamID == 9 && frames[4].1 == [0, 0, 0, 7])
        #expect(frames[5].1 == [0, 0, 0xFF, 0xFF])
        #expect(frames[6].0.streamID == 11 && frames[6].0.flags == FrameHeader.Flag.endHeaders | FrameHeader.Flag.endStream)
        var decoder = HeaderBlockDecoder()
        let fields = try frames[6].1.withUnsafeBytes { (block) throws(HeaderBlockDecoder.Failure) in try decoder.decode(block) }
        #expect(fields.map { "\($0.name): \($0.value)" } == [":status: 200", "apns-id: x"])
        #expect(frames[7].0 == FrameHeader(length: 3, type: 0, flags: FrameHeader.Flag.endStream, streamID: 13) && frames[7].1 == [1, 2, 3])
    }
}
