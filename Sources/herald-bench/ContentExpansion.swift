import ArgumentParser
import Foundation
import HeraldDevice
import HeraldWire
import HummingbirdWSClient
import Logging
import NIOWebSocket
import Synchronization
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

    @Flag(help: "Expand through the notification center page's WebSocket, as the page does (the daemon's server on loopback).")
    var throughPage = false

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
        if throughPage { return try await runThroughPage(notification) }
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

    /// The page's way: a notification center server on a free loopback port, and a WebSocket client sending
    /// `expand` and timing until the `expanded` message with the first view arrives, then `collapse`.
    private func runThroughPage(_ notification: NotificationRecord) async throws {
        let id = Presentation.ID(bundleID: "com.example.podcast", identifier: "e42")
        let presenter = NotificationCenterPresenter()
        await presenter.present(
            Presentation(card: NotificationCard(notification, bundleID: id.bundleID), app: .init(bundleID: id.bundleID), category: nil))
        let expanded = ExpandedNotification(bundleID: id.bundleID, notification: notification, actions: [], contentExtension: executable)
        let services = NotificationCenterServices(
            presenter: presenter, files: ServedFiles(), expand: { _ throws(UNError) in expanded }, environment: { _ in [:] })
        let secret = "bench-secret-bench-secret-bench-secret-1"
        let server = NotificationCenterServer(services: services, secret: secret, assets: [:])
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)
        let serving = Task { try await server.run(port: 0) { bound.yield($0) } }
        defer { serving.cancel() }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else { throw ValidationError("the notification center did not start") }

        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        let count = self.count
        let timed = TimedSamples()
        _ = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/\(secret)/live", configuration: configuration,
            logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        ) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            let expand = String(
                decoding: JSONValue.object(["type": .string("expand"), "app": .string(id.bundleID), "id": .string(id.identifier)]).encoded(),
                as: UTF8.self)
            for _ in 0..<count {
                let start = ContinuousClock.now
                try await outbound.write(.text(expand))
                while let message = try await messages.next() {
                    guard case .text(let text) = message, let answer = try? JSONValue.parse(Data(text.utf8)),
                        answer["type"]?.stringValue == "expanded"
                    else { continue }
                    guard answer["failure"] == nil, "\(answer["view"] ?? .null)".contains("Episode 42 with Ada Lovelace") else {
                        throw ValidationError("the page was sent something else: \(text)")
                    }
                    break
                }
                timed.append(ContinuousClock.now - start)
                try await outbound.write(.text(#"{"type":"collapse"}"#))
            }
            try await outbound.close(.normalClosure, reason: nil)
        }
        let samples = timed.values.withLock { $0 }
        guard samples.count == count else { throw ValidationError("the page's connection closed early") }
        print("expand → first view through the notification center page (WebSocket on loopback), \(count) expansions, one at a time:")
        print("  " + Percentiles(samples).summary + "   (goal: p99 < 300 ms, process start included)")
    }
}

/// Durations timed inside a WebSocket client's handler.
private final class TimedSamples: Sendable {
    let values = Mutex<[Duration]>([])

    func append(_ duration: Duration) {
        values.withLock { $0.append(duration) }
    }
}
