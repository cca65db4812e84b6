import Foundation
import HeraldTesting
import Testing

@testable import UserNotifications

@Suite struct AttachmentValidationTests {
    func code(_ body: () throws -> UNNotificationAttachment) -> UNError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as UNError {
            return error.code
        } catch {
            Issue.record("not a UNError: \(error)")
            return nil
        }
    }

    @Test func aMissingFileADirectoryOrANonFileURLIsAnInvalidURL() throws {
        let directory = try TemporaryDirectory()
        #expect(
            code { try UNNotificationAttachment(identifier: "", url: directory.url.appendingPathComponent("missing.png")) } == .attachmentInvalidURL)
        #expect(code { try UNNotificationAttachment(identifier: "", url: directory.url) } == .attachmentInvalidURL)
        #expect(code { try UNNotificationAttachment(identifier: "", url: URL(string: "https://example.com/a.png")!) } == .attachmentInvalidURL)
    }

    @Test func anEmptyFileIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        #expect(code { try UNNotificationAttachment(identifier: "", url: try directory.file("empty.png", [])) } == .attachmentCorrupt)
    }

    static let truncated: [(String, [UInt8])] = [
        ("jpeg without end marker", Array(AttachmentFixtures.jpeg.dropLast(2))),
        ("jpeg header only", [0xFF, 0xD8, 0xFF]),
        ("png without end chunk", Array(AttachmentFixtures.png.dropLast(12))),
        ("png signature only", Array(AttachmentFixtures.png.prefix(8))),
        ("gif cut inside a frame", Array(AttachmentFixtures.gif(frames: 2).dropLast(5))),
        ("gif without trailer", Array(AttachmentFixtures.gif(frames: 1).dropLast())),
        ("gif header only", AttachmentFixtures.ascii("GIF89a")),
        ("gif without frames", AttachmentFixtures.gif(frames: 0)),
        ("wav shorter than declared", Array(AttachmentFixtures.wave.dropLast(4))),
        ("aiff shorter than declared", Array(AttachmentFixtures.aiff.dropLast(4))),
        ("avi without main header", AttachmentFixtures.riff("AVI ", AttachmentFixtures.ascii("JUNK") + AttachmentFixtures.littleEndian32(0))),
        ("mp3 tag without audio", AttachmentFixtures.ascii("ID3") + [3, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10)),
        ("mp4 cut inside mdat", Array(AttachmentFixtures.mp4().dropLast(2))),
        ("mp4 without moov", AttachmentFixtures.ftyp("isom") + AttachmentFixtures.box("mdat", [1, 2, 3])),
        ("mp4 with empty mvhd", AttachmentFixtures.ftyp("isom") + AttachmentFixtures.box("moov", AttachmentFixtures.box("mvhd", []))),
        ("mp4 with zero timescale", AttachmentFixtures.mp4(timescale: 0)),
    ]

    @Test(arguments: truncated)
    func truncatedOrMalformedFilesAreCorrupt(_ description: String, bytes: [UInt8]) throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("file", bytes)
        #expect(code { try UNNotificationAttachment(identifier: "", url: url) } == .attachmentCorrupt, "\(description)")
    }

    /// Files at their kind's limit pass; one byte more is refused. MB = 10^6 bytes.
    static let limits: [(name: String, head: [UInt8], tail: [UInt8], limit: UInt64)] = [
        ("photo.jpg", Array(AttachmentFixtures.jpeg.dropLast(2)), [0xFF, 0xD9], 10_000_000),
        (
            "sound.wav", AttachmentFixtures.riff("WAVE", AttachmentFixtures.ascii("data") + AttachmentFixtures.littleEndian32(4_999_980)), [],
            5_000_000
        ),
        (
            "voice.m4a",
            AttachmentFixtures.ftyp("M4A ") + AttachmentFixtures.box("moov", AttachmentFixtures.mvhd(version: 0, timescale: 1000, duration: 1000))
                + AttachmentFixtures.bigEndian32(0) + AttachmentFixtures.ascii("mdat"), [], 5_000_000
        ),
        (
            "movie.mp4",
            AttachmentFixtures.ftyp("isom") + AttachmentFixtures.box("moov", AttachmentFixtures.mvhd(version: 0, timescale: 1000, duration: 1000))
                + AttachmentFixtures.bigEndian32(0) + AttachmentFixtures.ascii("mdat"), [], 50_000_000
        ),
    ]

    @Test(arguments: limits)
    func sizeLimits(name: String, head: [UInt8], tail: [UInt8], limit: UInt64) throws {
        let directory = try TemporaryDirectory()
        let atLimit = try directory.largeFile("at-" + name, head: head, size: limit, tail: tail)
        #expect(throws: Never.self) { try UNNotificationAttachment(identifier: "", url: atLimit) }
        let over = try directory.largeFile("over-" + name, head: head, size: limit + 1, tail: tail)
        #expect(code { try UNNotificationAttachment(identifier: "", url: over) } == .attachmentInvalidFileSize)
    }

    @Test(arguments: [
        ("anim.gif", AttachmentFixtures.gif(frames: 1), UInt64(10_000_001)), ("song.mp3", AttachmentFixtures.mp3WithID3, 5_000_001),
        ("clip.avi", AttachmentFixtures.avi(), 50_000_001),
    ])
    func sizeIsCheckedBeforeTheStructure(name: String, head: [UInt8], size: UInt64) throws {
        let directory = try TemporaryDirectory()
        let url = try directory.largeFile(name, head: head, size: size)
        #expect(code { try UNNotificationAttachment(identifier: "", url: url) } == .attachmentInvalidFileSize)
    }

    @Test func kindLimitsAreDecimalMegabytes() {
        #expect(AttachmentKind.audio.maximumSize == 5_000_000)
        #expect(AttachmentKind.image.maximumSize == 10_000_000)
        #expect(AttachmentKind.movie.maximumSize == 50_000_000)
    }
}
