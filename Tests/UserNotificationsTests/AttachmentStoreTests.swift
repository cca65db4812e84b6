import Foundation
import HeraldTesting
import Testing
import UserNotifications

/// Attachments move into the app's store when added and leave it with their notification.
@Suite struct AttachmentStoreTests {
    private func request(_ id: String, attaching url: URL) throws -> RequestRecord {
        let content = UNMutableNotificationContent()
        content.title = "Photo"
        content.attachments = [try UNNotificationAttachment(identifier: "photo", url: url, options: nil)]
        return try RequestRecord(UNNotificationRequest(identifier: id, content: content, trigger: nil))
    }

    @Test func aFileIsMovedInAndDeletedWithItsNotification() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        let original = try harness.directory.file("photo.png", AttachmentFixtures.png + [UInt8](repeating: 0, count: 64))
        let fired = try #require(try await harness.engine.add(request("p", attaching: original), of: EngineHarness.app, now: EngineHarness.start))
        #expect(!FileManager.default.fileExists(atPath: original.path))
        let stored = try #require(fired.notification.request.content.attachments.first?.url)
        #expect(stored.path.hasPrefix(harness.attachmentDirectory.path))
        try await harness.engine.complete(fired, options: [.list])
        #expect(FileManager.default.fileExists(atPath: stored.path))
        try await harness.engine.removeDelivered(of: EngineHarness.app, identifiers: ["p"])
        #expect(!FileManager.default.fileExists(atPath: stored.path))
    }

    @Test func aFileInTheAppBundleIsCopied() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        try FileManager.default.createDirectory(at: harness.bundleDirectory, withIntermediateDirectories: true)
        let bundled = harness.bundleDirectory.appendingPathComponent("logo.png")
        try Data(AttachmentFixtures.png + [0, 0, 0, 0]).write(to: bundled)
        _ = try await harness.engine.add(request("logo", attaching: bundled), of: EngineHarness.app, now: EngineHarness.start)
        #expect(FileManager.default.fileExists(atPath: bundled.path))
    }

    @Test func aFullStoreRefusesAndGivesTheFileBack() async throws {
        let harness = try EngineHarness()  // capacity 1 MB
        try await harness.authorize()
        let big = try harness.directory.largeFile(
            "big.png", head: AttachmentFixtures.png, size: 1_500_000, tail: [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
        #expect(
            await unError {
                _ = try await harness.engine.add(try request("big", attaching: big), of: EngineHarness.app, now: EngineHarness.start)
            } == .attachmentMoveIntoDataStoreFailed)
        #expect(FileManager.default.fileExists(atPath: big.path))
    }

    @Test func aFileRemovedBeforeAddIsAnInvalidURL() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        let photo = try harness.directory.file("gone.png", AttachmentFixtures.png + [0, 0])
        let record = try request("gone", attaching: photo)
        try FileManager.default.removeItem(at: photo)
        #expect(
            await unError {
                _ = try await harness.engine.add(record, of: EngineHarness.app, now: EngineHarness.start)
            } == .attachmentInvalidURL)
    }
}
