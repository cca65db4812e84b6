import Foundation
import HeraldTesting
import HeraldWire
import Synchronization
import Testing
import UserNotifications
import UserNotificationsUI

@testable import HeraldDevice

/// One notification center page's connection, driven message by message as the page drives it, with the podcast
/// example's real content extension (and a script for one that never answers): what the page is sent, and what the
/// daemon hears.
@Suite(.timeLimit(.minutes(1))) struct NotificationCenterConnectionTests {
    static let episode = Presentation.ID(bundleID: "com.example.podcast", identifier: "e12")

    /// A connection under test: the page's messages in, what it is sent out, the presenter's events recorded.
    struct Page {
        let presenter: NotificationCenterPresenter
        let toPage: AsyncStream<JSONValue>
        let fromPage: AsyncStream<JSONValue>.Continuation
        let recorded = Recorded()
        var iterator: AsyncStream<JSONValue>.Iterator

        /// The next message of `type` the page is sent (earlier ones of other types are skipped).
        mutating func next(_ type: String) async throws -> JSONValue {
            while let message = await iterator.next() {
                if message["type"]?.stringValue == type { return message }
            }
            throw CancellationError()
        }

        func send(_ fields: [String: String]) {
            fromPage.yield(.object(fields.mapValues(JSONValue.string)))
        }

        var events: [PresenterEvent] { recorded.events.withLock { $0 } }
    }

    /// What the daemon hears from the page.
    final class Recorded: Sendable {
        let events = Mutex<[PresenterEvent]>([])
    }

    static func notification(_ body: String) throws -> NotificationRecord {
        let content = UNMutableNotificationContent()
        content.title = "New episode"
        content.body = body
        content.categoryIdentifier = "new-episode"
        return try NotificationRecord(UNNotification(request: UNNotificationRequest(identifier: "e12", content: content, trigger: nil), date: Date()))
    }

    /// A page connected to a connection whose `expand` gives `body`'s notification with `executable` as its extension.
    static func page(
        executable: URL = ExampleContentExtensionTests.podcast, body: @escaping @Sendable () -> String = { "Episode 12" },
        answerBudget: Duration = .seconds(10)
    ) async throws -> (Page, Task<Void, Never>) {
        let presenter = NotificationCenterPresenter()
        let listen = ActionRecord(UNNotificationAction(identifier: "listen", title: "Listen", options: [.foreground]))
        var services = NotificationCenterServices(
            presenter: presenter, files: ServedFiles(),
            expand: { id throws(UNError) in
                guard id == episode else { throw UNError(.notificationsNotAllowed, "no delivered notification has the identifier \(id.identifier)") }
                return ExpandedNotification(
                    bundleID: id.bundleID, notification: try! notification(body()), actions: [listen], contentExtension: executable.path,
                    defaultContentHidden: true)
            },
            environment: { _ in [:] })
        services.answerBudget = answerBudget
        // Presented before the page connects, so that the list the page gets first holds it (presented after, it
        // raced the list: now in it, now a change after it).
        await presenter.present(
            Presentation(
                card: NotificationCard(try notification(body()), bundleID: episode.bundleID), app: .init(bundleID: episode.bundleID), category: nil))
        let (toPage, output) = AsyncStream.makeStream(of: JSONValue.self)
        let (fromPage, input) = AsyncStream.makeStream(of: JSONValue.self)
        let connection = NotificationCenterConnection(services: services)
        let running = Task {
            await connection.run(receiving: fromPage) { output.yield($0) }
            output.finish()
        }
        let page = Page(presenter: presenter, toPage: toPage, fromPage: input, iterator: toPage.makeAsyncIterator())
        let recorded = page.recorded
        Task { try? await presenter.run { event in recorded.events.withLock { $0.append(event) } } }
        return (page, running)
    }

    @Test func anExpandedEpisodeRedrawsOnLaterAndForwardsListen() async throws {
        var (page, running) = try await Self.page()
        defer { running.cancel() }
        #expect(try await page.next("notifications")["notifications"].map { "\($0)" }?.contains("e12") == true)

        page.send(["type": "expand", "app": "com.example.podcast", "id": "no-such"])
        #expect(try await page.next("error")["message"]?.stringValue == "no delivered notification has the identifier no-such")

        page.send(["type": "expand", "app": "com.example.podcast", "id": "e12"])
        let expanded = try await page.next("expanded")
        #expect(expanded["failure"] == nil && expanded["defaultContentHidden"] == .bool(true))
        #expect("\(expanded["view"] ?? .null)".contains("Episode 12"))
        // Its preferredContentSize: 300 points high at first, 60 once Later resized it.
        #expect(expanded["height"] == .integer(300))

        page.send(["type": "action", "action": "later"])
        let redrawn = try await page.next("view")
        #expect("\(redrawn["view"] ?? .null)".contains("Saved for later"))
        #expect(redrawn["height"] == .integer(60))
        page.send(["type": "action", "action": "listen"])
        #expect(try await page.next("collapsed")["reason"]?.stringValue == "forwarded")
        let deadline = ContinuousClock.now + .seconds(5)
        while page.events.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        // Only Listen reaches the app; Later stayed with the extension.
        #expect(page.events == [.action(Self.episode, identifier: "listen")])
    }

    /// The whole list once, then each change alone: with 1,000 notifications listed, a new one costs one card.
    /// Previews off: the page is sent the app and the placeholder, never the title, body or image (as the desktop).
    @Test func hiddenPreviewsSendThePageOnlyThePlaceholder() throws {
        var card = NotificationCard(try Self.notification("Episode 12: the secret"), bundleID: "com.example.podcast")
        card.style.hidesPreview = true
        let hidden = NotificationCenterJSON.notification(
            Presentation(card: card, app: .init(bundleID: "com.example.podcast"), category: nil), files: ServedFiles())
        #expect(hidden["body"] == .string("Notification") && hidden["title"] == .null && hidden["subtitle"] == .null)
        #expect(!String(decoding: hidden.encoded(), as: UTF8.self).contains("secret"))
        card.style.hidesPreview = false
        let shown = NotificationCenterJSON.notification(
            Presentation(card: card, app: .init(bundleID: "com.example.podcast"), category: nil), files: ServedFiles())
        #expect(shown["body"] == .string("Episode 12: the secret") && shown["title"] == .string("New episode"))
    }

    /// The attachment options: a hidden thumbnail shows no image on the card, a clipping rectangle is sent for the page
    /// to show only that part (`object-view-box`).
    @Test func thumbnailOptionsDecideTheCardsImage() throws {
        var card = NotificationCard(try Self.notification("Episode 12"), bundleID: "com.example.podcast")
        card.attachments = [
            NotificationCard.Attachment(
                identifier: "cover", path: "/tmp/cover.png", thumbnailClip: ClippingRect(x: 0.25, y: 0, width: 0.5, height: 1))
        ]
        let presentation = { Presentation(card: card, app: .init(bundleID: "com.example.podcast"), category: nil) }
        let clipped = NotificationCenterJSON.notification(presentation(), files: ServedFiles())
        #expect(clipped["image"]?.stringValue != nil && clipped["imageClip"] == .array([.number(0.25), .number(0), .number(0.5), .number(1)]))
        card.attachments[0].hidesThumbnail = true
        let hidden = NotificationCenterJSON.notification(presentation(), files: ServedFiles())
        #expect(hidden["image"] == .null && hidden["imageClip"] == .null)
    }

    @Test func thePageIsSentTheListOnceThenEachChange() async throws {
        var (page, running) = try await Self.page()
        defer { running.cancel() }
        guard case .array(let listed)? = try await page.next("notifications")["notifications"] else { throw CancellationError() }
        #expect(listed.count == 1)

        let other = Presentation.ID(bundleID: "com.example.other", identifier: "o1")
        let content = UNMutableNotificationContent()
        content.title = "Other"
        let record = try NotificationRecord(
            UNNotification(request: UNNotificationRequest(identifier: "o1", content: content, trigger: nil), date: Date()))
        await page.presenter.present(
            Presentation(card: NotificationCard(record, bundleID: other.bundleID), app: .init(bundleID: other.bundleID), category: nil))
        let presented = try await page.next("presented")
        #expect(presented["notification"]?["id"] == .string("o1") && presented["notification"]?["title"] == .string("Other"))
        #expect(presented["notifications"] == nil)

        await page.presenter.withdraw([other, Self.episode])
        let withdrawn = try await page.next("withdrawn")
        #expect(
            withdrawn["notifications"]
                == .array([
                    .object(["app": .string("com.example.other"), "id": .string("o1")]),
                    .object(["app": .string("com.example.podcast"), "id": .string("e12")]),
                ]))
    }

    @Test func aReplacementIsGivenToTheShownExtensionAndAWithdrawalClosesIt() async throws {
        let body = Mutex("Episode 12")
        var (page, running) = try await Self.page(body: { body.withLock { $0 } })
        defer { running.cancel() }
        page.send(["type": "expand", "app": "com.example.podcast", "id": "e12"])
        _ = try await page.next("expanded")
        body.withLock { $0 = "Episode 12, now with chapters" }
        await page.presenter(replacing: Self.episode, body: "Episode 12, now with chapters")
        #expect("\(try await page.next("view")["view"] ?? .null)".contains("now with chapters"))
        await page.presenter.withdraw([Self.episode])
        #expect(try await page.next("collapsed")["id"]?.stringValue == "e12")
    }

    /// A page expanding the notification with a shell script as its extension: one that draws an empty view at once,
    /// then runs `afterDrawing`.
    static func expandScript(_ afterDrawing: String, answerBudget: Duration = .seconds(10)) async throws -> (Page, Task<Void, Never>) {
        let script = URL(fileURLWithPath: TemporaryPath.make("content-extension", suffix: ".sh"))
        try "#!/bin/sh\necho '{\"view\":{\"drawing\":{\"view\":{}},\"children\":[]}}' >&3\n\(afterDrawing)\n".write(
            to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        var (page, running) = try await Self.page(executable: script, answerBudget: answerBudget)
        // A script just written may not start at once (ETXTBSY while another test's child holds it): asked again.
        var expanded = JSONValue.null
        for _ in 0..<20 {
            page.send(["type": "expand", "app": "com.example.podcast", "id": "e12"])
            expanded = try await page.next("expanded")
            guard expanded["failure"]?.stringValue?.contains("cannot be started") == true else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(expanded["failure"] == nil, "\(expanded)")
        return (page, running)
    }

    @Test func anExtensionThatCrashesWhileShownFallsBackToTheDefaultView() async throws {
        var (page, running) = try await Self.expandScript("read line\necho 'got an action' >&2\nkill -SEGV $$")
        defer { running.cancel() }
        page.send(["type": "action", "action": "listen"])
        let fallback = try await page.next("expanded")
        #expect(fallback["failure"]?.stringValue == "the content extension crashed (signal 11, SIGSEGV)")
        #expect(page.events.isEmpty, "the app is not told of an action the extension never answered")
    }

    @Test func anExtensionThatDoesNotAnswerFallsBackToTheDefaultView() async throws {
        var (page, running) = try await Self.expandScript("cat >/dev/null", answerBudget: .milliseconds(300))
        defer { running.cancel() }
        page.send(["type": "action", "action": "listen"])
        let fallback = try await page.next("expanded")
        #expect(fallback["failure"]?.stringValue == "the content extension did not answer within 0.3 seconds")
        #expect(fallback["view"] == .null && fallback["defaultContentHidden"] == .bool(false))
        // The default view's actions now go to the app at once.
        page.send(["type": "action", "action": "listen"])
        let deadline = ContinuousClock.now + .seconds(5)
        while page.events.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(page.events == [.action(Self.episode, identifier: "listen")])
    }
}

extension NotificationCenterConnectionTests.Page {
    func presenter(replacing id: Presentation.ID, body: String) async {
        let record = try! NotificationCenterConnectionTests.notification(body)
        await presenter.present(Presentation(card: NotificationCard(record, bundleID: id.bundleID), app: .init(bundleID: id.bundleID), category: nil))
    }
}
