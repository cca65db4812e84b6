import ArgumentParser
import Foundation
import HeraldDevice
import UserNotifications
import UserNotificationsUI

/// `herald-bench content`: the time from "expand" to a content extension's first drawn view, process start included,
/// over many expansions: what the person waits for on the notification center page.
struct ContentExpansion: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content",
        abstract: "Time a content extension from start to its first view, over many expansions (one at a time)."
    )

    @Option(help: "The content extension's executable (the podcast example's, built in release).")
    var executable: String

    @Option(help: "Expansions to time.")
    var count = 100

    @Option(help: "An image file attached to the notification, as the podcast's service extension attaches its cover.")
    var image: String?

    func run() async throws {
        let content = UNMutableNotificationContent()
        content.title = "New episode"
        content.body = "Episode 42 with Ada Lovelace"
        content.categoryIdentifier = "new-episode"
        if let image {
            content.attachments = [try UNNotificationAttachment(identifier: "cover", url: URL(fileURLWithPath: image), options: nil)]
        }
        let notification = try NotificationRecord(
            UNNotification(request: UNNotificationRequest(identifier: "e42", content: content, trigger: nil), date: Date()))
        let directory = URL(fileURLWithPath: NSTemporaryDirectory())
        var samples: [Duration] = []
        for _ in 0..<count {
            let start = ContinuousClock.now
            let hosted = try await HostedContentExtension.start(
                executable: URL(fileURLWithPath: executable), notification: notification, environment: [:], directory: directory,
                startBudget: .seconds(10))
            samples.append(ContinuousClock.now - start)
            guard hosted.firstView?.text.first == "Episode 42 with Ada Lovelace" else {
                throw ValidationError("the extension drew something else: \(hosted.firstView?.text ?? [])")
            }
            await hosted.close()
        }
        print("expand → first view of \(URL(fileURLWithPath: executable).lastPathComponent), \(count) expansions, one at a time:")
        print("  " + Percentiles(samples).summary + "   (goal: p99 < 300 ms, process start included)")
    }
}
