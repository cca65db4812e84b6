import Foundation
import HeraldTesting
import Testing

@testable import HeraldDevice
@testable import UserNotifications

/// The pieces under the service extension runner: its capped log, its latch, the wire, and app group containers.
@Suite struct ServiceExtensionPartsTests {
    @Test func theLogKeepsItsHeadAndTailWithinTheLimit() {
        var log = ServiceExtensionLog(limit: 8)
        log.append(Data("abcdef".utf8))
        log.append(Data("ghijklmnop".utf8))
        #expect(log.byteCount == 16)
        #expect(log.text == "abcd\n[… 8 bytes of log left out …]\nmnop")
        var short = ServiceExtensionLog(limit: 8)
        short.append(Data("abc".utf8))
        short.append(Data("de".utf8))
        #expect(short.text == "abcde")
    }

    @Test func aLatchLetsWaitersThroughOnceOpen() async {
        let latch = AsyncLatch()
        #expect(await !latch.wait(until: .now + .milliseconds(20)))
        async let waited = latch.wait(until: .now + .seconds(60))
        try? await Task.sleep(for: .milliseconds(20))
        latch.open()
        #expect(await waited)
        #expect(await latch.wait(until: .now))
    }

    @Test func aCancelledWaitEnds() async {
        let latch = AsyncLatch()
        let task = Task { await latch.wait(until: .now + .seconds(60)) }
        task.cancel()
        #expect(await !task.value)
    }

    /// The extension chose what is at the result path: only a regular file within the limit is read.
    @Test func theResultIsReadOnlyFromARegularFileWithinTheLimit() throws {
        let directory = try TemporaryDirectory()
        let result = try directory.file("result.json", Array(#"{"content":{}}"#.utf8))
        #expect(ServiceExtensionRunner.readResult(at: result, limit: 100) == .data(Data(#"{"content":{}}"#.utf8)))
        #expect(ServiceExtensionRunner.readResult(at: result, limit: 5) == .tooLarge(14))
        #expect(ServiceExtensionRunner.readResult(at: directory.url.appendingPathComponent("none"), limit: 100) == .absent)
        let link = directory.url.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: result)
        #expect(ServiceExtensionRunner.readResult(at: link, limit: 100) != .data(Data(#"{"content":{}}"#.utf8)))  // not followed
        let fifo = directory.url.appendingPathComponent("fifo.json")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(ServiceExtensionRunner.readResult(at: fifo, limit: 100) == .unreadable("it is not a regular file"))
        #expect(ServiceExtensionRunner.readResult(at: URL(fileURLWithPath: "/dev/zero"), limit: 100) == .tooLarge(101))
    }

    @Test func inputMessagesAreOneJSONLineEach() throws {
        let request = try ExtensionHarness.request(mode: "modify")
        let line = try ServiceExtensionWire.Input(request: request).line()
        #expect(line.last == UInt8(ascii: "\n") && !line.dropLast().contains(UInt8(ascii: "\n")))
        #expect(try JSONDecoder().decode(ServiceExtensionWire.Input.self, from: line) == ServiceExtensionWire.Input(request: request))
        #expect(String(decoding: try ServiceExtensionWire.Input(timeWillExpire: true).line(), as: UTF8.self) == "{\"timeWillExpire\":true}\n")
    }

    @Test func anAppGroupContainerIsOneDirectoryUnderTheDataDirectory() throws {
        let directory = try TemporaryDirectory()
        let environment = ["HERALD_DATA_DIR": directory.url.path]
        let container = try #require(AppGroupContainer.url(for: "group.com.example.e2e", environment: environment))
        #expect(
            container.standardizedFileURL.path == directory.url.appendingPathComponent("app-groups/group.com.example.e2e").standardizedFileURL.path)
        let permissions = try FileManager.default.attributesOfItem(atPath: container.path)[.posixPermissions] as? Int
        #expect(permissions == 0o700)
        #expect(AppGroupContainer.url(for: "group.com.example.e2e", environment: environment) == container)
        for bad in ["", ".", "..", "../escape", "a/b"] {
            #expect(AppGroupContainer.url(for: bad, environment: environment) == nil)
        }
    }

    @Test func aTakenAttachmentGetsTheTypeValidationFound() throws {
        let harness = try ExtensionHarness()
        let file = try harness.directory.file("cover.jpg", AttachmentFixtures.png + [0, 0, 0, 0])
        var record = AttachmentRecord(try UNNotificationAttachment(identifier: "cover", url: file, options: nil))
        record.type = "public.jpeg"  // as an extension's result might claim
        let taken = try harness.store.take([record])
        #expect(taken.map(\.type) == ["public.png"])
    }
}
