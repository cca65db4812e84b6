import Foundation
import HeraldDevice
import HeraldSpawn
import HeraldTesting
import Testing
import UserNotifications
import UserNotificationsUI

/// The podcast example's content extension as a process: the daemon's lines in, its views and answers out.
@Suite struct ExampleContentExtensionTests {
    static let podcast = ExtensionHarness.built("PodcastContentExtension")

    @Test func theExpandedEpisodeShowsItsTextAndCoverAndAnswersItsActions() async throws {
        let cover = URL(fileURLWithPath: TemporaryPath.make("cover", suffix: ".png"))
        try Data(AttachmentFixtures.png).write(to: cover)
        let content = UNMutableNotificationContent()
        content.title = "New episode"
        content.body = "Episode 12 with Ada Lovelace"
        content.categoryIdentifier = "new-episode"
        content.attachments = [try UNNotificationAttachment(identifier: "podcast-image", url: cover, options: nil)]
        let notification = try NotificationRecord(
            UNNotification(request: UNNotificationRequest(identifier: "e12", content: content, trigger: nil), date: Date()))
        let inputs: [ContentExtensionWire.Input] = [
            .init(notification: notification), .init(response: .init(actionIdentifier: "later")), .init(response: .init(actionIdentifier: "listen")),
        ]
        let input = try inputs.map { try JSONEncoder().encode($0) + Data("\n".utf8) }.reduce(Data(), +)

        let inputFile = TemporaryPath.make("content-input")
        let outputFile = TemporaryPath.make("content-output")
        try input.write(to: URL(fileURLWithPath: inputFile))
        #expect(FileManager.default.createFile(atPath: outputFile, contents: nil))
        let stdin = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputFile))
        let stdout = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
        let process = try ChildProcess.launch(
            Self.podcast.path, standardInput: stdin.fileDescriptor, standardOutput: stdout.fileDescriptor)
        try stdin.close()
        try stdout.close()
        #expect(await process.terminated() == .exited(0), "the end of its input ends the extension")

        let outputs = try String(contentsOfFile: outputFile, encoding: .utf8).split(separator: "\n").compactMap {
            try? JSONDecoder().decode(ContentExtensionWire.Output.self, from: Data($0.utf8))
        }
        let views = outputs.compactMap(\.view)
        #expect(views.first?.text == ["Episode 12 with Ada Lovelace", "[png image, \(AttachmentFixtures.png.count) bytes: \(cover.path)]"])
        #expect(outputs.first?.mediaButton == UNNotificationContentExtensionMediaPlayPauseButtonType.none.rawValue)
        #expect(outputs.compactMap(\.completion) == [0, 2], "later: .doNotDismiss; listen: .dismissAndForwardAction")
        #expect(views.last?.text.first == "Saved for later. We'll remind you tonight.")
    }
}
