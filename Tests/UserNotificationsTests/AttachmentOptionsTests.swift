import Foundation
import HeraldTesting
import Testing

@testable import UserNotifications

@Suite struct AttachmentOptionsTests {
    func attach(_ name: String, _ bytes: [UInt8], _ options: [AnyHashable: Any]) throws -> UNNotificationAttachment {
        let directory = try TemporaryDirectory()
        return try UNNotificationAttachment(identifier: "a", url: try directory.file(name, bytes), options: options)
    }

    func errorCode(_ name: String, _ bytes: [UInt8], _ options: [AnyHashable: Any]) -> UNError.Code? {
        do {
            _ = try attach(name, bytes, options)
            return nil
        } catch {
            return (error as? UNError)?.code
        }
    }

    static var validRects: [Any] {
        [
            ["X": 0.25, "Y": 0.25, "Width": 0.5, "Height": 0.5],
            ["X": 0, "Y": 0, "Width": 1, "Height": 1],
            ["X": NSNumber(value: 0.1), "Y": NSNumber(value: 0), "Width": NSNumber(value: 0.9), "Height": NSNumber(value: 0.5)],
            CGRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5),
        ]
    }

    @Test(arguments: 0..<validRects.count)
    func clippingRectsInsideTheUnitSquareAreKept(index: Int) throws {
        let attachment = try attach(
            "a.png", AttachmentFixtures.png, [UNNotificationAttachmentOptionsThumbnailClippingRectKey: Self.validRects[index]])
        let rect = try #require(attachment.options.thumbnailClippingRect)
        #expect(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= 1 && rect.y + rect.height <= 1)
    }

    @Test func theCentreRectIsReadAsGiven() throws {
        let attachment = try attach(
            "a.png", AttachmentFixtures.png,
            [
                UNNotificationAttachmentOptionsThumbnailClippingRectKey: ["X": 0.25, "Y": 0.25, "Width": 0.5, "Height": 0.5]
            ])
        #expect(attachment.options.thumbnailClippingRect == ClippingRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
    }

    static var invalidRects: [Any] {
        [
            ["X": 0.8, "Y": 0, "Width": 0.5, "Height": 0.5],
            ["X": 0, "Y": 0.6, "Width": 0.5, "Height": 0.5],
            ["X": -0.1, "Y": 0, "Width": 0.5, "Height": 0.5],
            ["X": 0, "Y": 0, "Width": 0, "Height": 0.5],
            ["X": 0, "Y": 0, "Width": 2, "Height": 2],
            ["X": 0, "Y": 0, "Width": Double.nan, "Height": 0.5],
            ["X": 0, "Y": 0, "Width": 0.5],
            ["X": "0", "Y": 0, "Width": 0.5, "Height": 0.5] as [String: Any],
            CGRect(x: 10, y: 10, width: 100, height: 100),
            "0.25,0.25,0.5,0.5",
        ]
    }

    @Test(arguments: 0..<invalidRects.count)
    func clippingRectsOutsideTheUnitSquareOrMalformedAreRefused(index: Int) {
        #expect(
            errorCode("a.png", AttachmentFixtures.png, [UNNotificationAttachmentOptionsThumbnailClippingRectKey: Self.invalidRects[index]])
                == .attachmentCorrupt)
    }

    @Test(arguments: [(UInt8(0), 5.0), (0, 10.0), (1, 0.0), (1, 9.99)])
    func thumbnailTimesWithinTheMovieAreKept(version: UInt8, seconds: Double) throws {
        // 6000 units at 600 per second: a 10-second movie.
        let attachment = try attach("clip.mp4", AttachmentFixtures.mp4(version: version), [UNNotificationAttachmentOptionsThumbnailTimeKey: seconds])
        #expect(attachment.options.thumbnailTime == seconds)
    }

    @Test(arguments: [(UInt8(0), 10.5), (1, 11.0), (0, 3600.0)])
    func thumbnailTimesPastTheEndAreRefused(version: UInt8, seconds: Double) {
        #expect(
            errorCode("clip.mp4", AttachmentFixtures.mp4(version: version), [UNNotificationAttachmentOptionsThumbnailTimeKey: seconds])
                == .attachmentCorrupt)
    }

    @Test func aVersionOneMovieHeaderWithA64BitDuration() throws {
        let long = AttachmentFixtures.mp4(version: 1, timescale: 1000, duration: 5_000_000_000)  // 5,000,000 s
        #expect(try attach("long.mp4", long, [UNNotificationAttachmentOptionsThumbnailTimeKey: 4_000_000]).type == "public.mpeg-4")
        #expect(errorCode("long.mp4", long, [UNNotificationAttachmentOptionsThumbnailTimeKey: 5_000_001]) == .attachmentCorrupt)
    }

    @Test func anUnknownDurationAcceptsAnyTime() throws {
        let unknown = AttachmentFixtures.mp4(version: 0, duration: UInt64(UInt32.max))
        #expect(try attach("live.mp4", unknown, [UNNotificationAttachmentOptionsThumbnailTimeKey: 99_999]).options.thumbnailTime == 99_999)
    }

    @Test func thumbnailTimeAsACMTimeDictionary() throws {
        let fiveSeconds: [String: Any] = ["value": 3000, "timescale": 600, "flags": 1, "epoch": 0]
        #expect(
            try attach("clip.mp4", AttachmentFixtures.mp4(), [UNNotificationAttachmentOptionsThumbnailTimeKey: fiveSeconds]).options.thumbnailTime
                == 5)
        let fifteen: [String: Any] = ["value": 9000, "timescale": 600]
        #expect(errorCode("clip.mp4", AttachmentFixtures.mp4(), [UNNotificationAttachmentOptionsThumbnailTimeKey: fifteen]) == .attachmentCorrupt)
        let invalid: [String: Any] = ["value": 600, "timescale": 600, "flags": 0]
        #expect(errorCode("clip.mp4", AttachmentFixtures.mp4(), [UNNotificationAttachmentOptionsThumbnailTimeKey: invalid]) == .attachmentCorrupt)
    }

    @Test(arguments: [-1.0, .nan, .infinity])
    func negativeOrNonFiniteTimesAreRefused(seconds: Double) {
        #expect(errorCode("clip.mp4", AttachmentFixtures.mp4(), [UNNotificationAttachmentOptionsThumbnailTimeKey: seconds]) == .attachmentCorrupt)
    }

    @Test func aBooleanIsNotATime() {
        #expect(errorCode("clip.mp4", AttachmentFixtures.mp4(), [UNNotificationAttachmentOptionsThumbnailTimeKey: true]) == .attachmentCorrupt)
    }

    @Test func aGIFsThumbnailTimeIsAFrameNumber() throws {
        let gif = AttachmentFixtures.gif(frames: 3)
        #expect(try attach("a.gif", gif, [UNNotificationAttachmentOptionsThumbnailTimeKey: 2]).options.thumbnailTime == 2)
        #expect(errorCode("a.gif", gif, [UNNotificationAttachmentOptionsThumbnailTimeKey: 3]) == .attachmentCorrupt)
        #expect(errorCode("a.gif", gif, [UNNotificationAttachmentOptionsThumbnailTimeKey: 1.5]) == .attachmentCorrupt)
    }

    @Test func anAVIsLengthComesFromItsMainHeader() throws {
        let tenSeconds = AttachmentFixtures.avi(microsecondsPerFrame: 40_000, frames: 250)
        #expect(try attach("a.avi", tenSeconds, [UNNotificationAttachmentOptionsThumbnailTimeKey: 9.5]).type == "public.avi")
        #expect(errorCode("a.avi", tenSeconds, [UNNotificationAttachmentOptionsThumbnailTimeKey: 10.5]) == .attachmentCorrupt)
    }

    @Test func thumbnailHiddenMustBeABoolean() throws {
        #expect(
            try attach("a.png", AttachmentFixtures.png, [UNNotificationAttachmentOptionsThumbnailHiddenKey: true]).options.thumbnailHidden == true)
        #expect(
            try attach("a.png", AttachmentFixtures.png, [UNNotificationAttachmentOptionsThumbnailHiddenKey: NSNumber(value: false)]).options
                .thumbnailHidden == false)
        #expect(errorCode("a.png", AttachmentFixtures.png, [UNNotificationAttachmentOptionsThumbnailHiddenKey: "yes"]) == .attachmentCorrupt)
    }

    @Test func unknownKeysAreIgnoredAndOptionsRoundTripAsADictionary() throws {
        let attachment = try attach(
            "a.png", AttachmentFixtures.png,
            [
                "SomethingElse": Date(),
                UNNotificationAttachmentOptionsTypeHintKey: "public.png",
                UNNotificationAttachmentOptionsThumbnailHiddenKey: false,
                UNNotificationAttachmentOptionsThumbnailClippingRectKey: ["X": 0, "Y": 0, "Width": 0.5, "Height": 0.5],
            ])
        #expect(try AttachmentOptions(attachment.options.dictionary) == attachment.options)
        #expect(attachment.options.dictionary.count == 3)
    }

    @Test func optionKeysHaveTheirNames() {
        #expect(UNNotificationAttachmentOptionsTypeHintKey == "UNNotificationAttachmentOptionsTypeHintKey")
        #expect(UNNotificationAttachmentOptionsThumbnailHiddenKey == "UNNotificationAttachmentOptionsThumbnailHiddenKey")
        #expect(UNNotificationAttachmentOptionsThumbnailClippingRectKey == "UNNotificationAttachmentOptionsThumbnailClippingRectKey")
        #expect(UNNotificationAttachmentOptionsThumbnailTimeKey == "UNNotificationAttachmentOptionsThumbnailTimeKey")
    }
}
