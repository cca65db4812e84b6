import Foundation
import HeraldTesting
import Testing

@testable import UserNotifications

@Suite struct AttachmentTypeTests {
    static let recognized: [(name: String, bytes: [UInt8], type: String)] = [
        ("photo.jpg", AttachmentFixtures.jpeg, "public.jpeg"),
        ("icon.png", AttachmentFixtures.png, "public.png"),
        ("anim.gif", AttachmentFixtures.gif(frames: 3), "com.compuserve.gif"),
        ("sound.wav", AttachmentFixtures.wave, "com.microsoft.waveform-audio"),
        ("sound.aiff", AttachmentFixtures.aiff, "public.aiff-audio"),
        ("tagged.mp3", AttachmentFixtures.mp3WithID3, "public.mp3"),
        ("frames.mp3", AttachmentFixtures.mp3Frames, "public.mp3"),
        ("voice.m4a", AttachmentFixtures.mp4(brand: "M4A ", handlers: ["soun"]), "public.mpeg-4-audio"),
        ("music.mp4", AttachmentFixtures.mp4(brand: "mp42", handlers: ["soun"]), "public.mpeg-4-audio"),
        ("clip.mp4", AttachmentFixtures.mp4(brand: "isom", handlers: ["vide", "soun"]), "public.mpeg-4"),
        ("clip.m4v", AttachmentFixtures.mp4(brand: "M4V ", handlers: []), "public.mpeg-4"),
        ("old.mpg", AttachmentFixtures.mpeg1Program, "public.mpeg"),
        ("dvd.mpg", AttachmentFixtures.mpeg2Program, "public.mpeg-2-video"),
        ("stream.m1v", AttachmentFixtures.mpeg1Video, "public.mpeg"),
        ("stream.m2v", AttachmentFixtures.mpeg2Video, "public.mpeg-2-video"),
        ("movie.avi", AttachmentFixtures.avi(), "public.avi"),
    ]

    @Test(arguments: recognized)
    func contentDecidesTheType(name: String, bytes: [UInt8], type: String) throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file(name, bytes)
        let attachment = try UNNotificationAttachment(identifier: "a", url: url, options: nil)
        #expect(attachment.type == type)
        #expect(attachment.identifier == "a" && attachment.url == url)
    }

    @Test(arguments: recognized)
    func aWrongOrMissingExtensionDoesNotMatter(name: String, bytes: [UInt8], type: String) throws {
        let directory = try TemporaryDirectory()
        for misleading in ["file.txt", "file", name.hasSuffix(".gif") ? "file.png" : "file.gif"] {
            let attachment = try UNNotificationAttachment(identifier: "", url: try directory.file(misleading, bytes))
            #expect(attachment.type == type)
        }
    }

    @Test func aContradictingHintDoesNotOverrideClearContent() throws {
        let directory = try TemporaryDirectory()
        let attachment = try UNNotificationAttachment(
            identifier: "a", url: try directory.file("photo.jpg", AttachmentFixtures.png),
            options: [UNNotificationAttachmentOptionsTypeHintKey: "public.jpeg"])
        #expect(attachment.type == "public.png")
    }

    @Test func ambiguousMPEG4IsAMovieUnlessAHintOrTheExtensionSaysAudio() throws {
        let directory = try TemporaryDirectory()
        let noTracks = AttachmentFixtures.mp4(brand: "isom", handlers: [])
        #expect(try UNNotificationAttachment(identifier: "", url: try directory.file("a.mp4", noTracks)).type == "public.mpeg-4")
        #expect(try UNNotificationAttachment(identifier: "", url: try directory.file("b.m4a", noTracks)).type == "public.mpeg-4-audio")
        for hint in ["public.mpeg-4-audio", "com.apple.m4a-audio"] {
            let hinted = try UNNotificationAttachment(
                identifier: "", url: try directory.file("c.mp4", noTracks),
                options: [UNNotificationAttachmentOptionsTypeHintKey: hint])
            #expect(hinted.type == "public.mpeg-4-audio")
        }
        // The hint wins over the extension.
        let both = try UNNotificationAttachment(
            identifier: "", url: try directory.file("d.m4a", noTracks),
            options: [UNNotificationAttachmentOptionsTypeHintKey: "public.mpeg-4"])
        #expect(both.type == "public.mpeg-4")
    }

    @Test func aLoneMP3FrameHeaderNeedsAHintOrTheExtension() throws {
        let directory = try TemporaryDirectory()
        #expect(try UNNotificationAttachment(identifier: "", url: try directory.file("a.mp3", AttachmentFixtures.mp3Weak)).type == "public.mp3")
        let hinted = try UNNotificationAttachment(
            identifier: "", url: try directory.file("a.bin", AttachmentFixtures.mp3Weak),
            options: [UNNotificationAttachmentOptionsTypeHintKey: "public.mp3"])
        #expect(hinted.type == "public.mp3")
        let error = #expect(throws: UNError.self) {
            try UNNotificationAttachment(identifier: "", url: try directory.file("b.bin", AttachmentFixtures.mp3Weak))
        }
        #expect(error?.code == .attachmentUnrecognizedType)
    }

    static let unrecognized: [(String, [UInt8])] = [
        ("notes.jpg", AttachmentFixtures.ascii("just some text, not an image")),
        ("movie.mov", AttachmentFixtures.mp4(brand: "qt  ")),
        ("doc.pdf", AttachmentFixtures.ascii("%PDF-1.7\n%\u{e2}\u{e3}\n1 0 obj\n")),
        ("sound.flac", AttachmentFixtures.ascii("fLaC") + [UInt8](repeating: 0, count: 64)),
        ("zeros.mp4", [UInt8](repeating: 0, count: 64)),
    ]

    @Test(arguments: unrecognized)
    func unsupportedContentIsRefusedWhateverTheHint(name: String, bytes: [UInt8]) throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file(name, bytes)
        for options in [nil, [UNNotificationAttachmentOptionsTypeHintKey: "public.jpeg"] as [AnyHashable: Any]] {
            let error = #expect(throws: UNError.self) { try UNNotificationAttachment(identifier: "x", url: url, options: options) }
            #expect(error?.code == .attachmentUnrecognizedType)
        }
    }

    @Test func aHintThatIsNotAStringIsRefused() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: UNError.self) {
            try UNNotificationAttachment(
                identifier: "", url: try directory.file("a.png", AttachmentFixtures.png),
                options: [UNNotificationAttachmentOptionsTypeHintKey: 42])
        }
        #expect(error?.code == .attachmentUnrecognizedType)
    }

    @Test func anEmptyIdentifierGetsAUUID() throws {
        let directory = try TemporaryDirectory()
        let attachment = try UNNotificationAttachment(identifier: "", url: try directory.file("a.png", AttachmentFixtures.png))
        #expect(UUID(uuidString: attachment.identifier) != nil)
    }

    @Test func equalityAndRelocation() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("a.png", AttachmentFixtures.png)
        let options: [AnyHashable: Any] = [UNNotificationAttachmentOptionsThumbnailHiddenKey: true]
        let first = try UNNotificationAttachment(identifier: "a", url: url, options: options)
        let same = try UNNotificationAttachment(identifier: "a", url: url, options: options)
        let withoutOptions = try UNNotificationAttachment(identifier: "a", url: url)
        #expect(first == same)
        #expect(first != withoutOptions)
        let stored = first.relocated(to: URL(fileURLWithPath: "/var/lib/herald/attachments/a.png"))
        #expect(stored.identifier == "a" && stored.type == "public.png" && stored.options == first.options)
        #expect(stored.url.path == "/var/lib/herald/attachments/a.png")
        let copyIsItself = (first.copy() as AnyObject) === first  // (#expect cannot take === across AnyObject: compiler crash)
        #expect(copyIsItself)
    }

    @Test(arguments: [
        ("public.jpeg", AttachmentFormat.jpeg), ("PUBLIC.PNG", .png), ("com.apple.m4a-audio", .mpeg4Audio),
        ("public.aifc-audio", .aiff), ("public.avi-movie", .avi),
    ])
    func typeIdentifiersAndAliases(identifier: String, format: AttachmentFormat) {
        #expect(AttachmentFormat(typeIdentifier: identifier) == format)
    }

    @Test func everyFormatHasAKindAndExtensions() {
        for format in AttachmentFormat.allCases {
            #expect(!format.fileExtensions.isEmpty)
            for ext in format.fileExtensions {
                #expect(AttachmentFormat(fileExtension: ext.uppercased()) == format)
            }
        }
        #expect(AttachmentFormat(typeIdentifier: "public.heic") == nil)
    }
}
