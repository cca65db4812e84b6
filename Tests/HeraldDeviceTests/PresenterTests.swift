import Foundation
import HeraldTesting
import HeraldWire
import Synchronization
import Testing

@testable import HeraldDevice
@testable import UserNotifications

/// The daemon's presenter seam: every presenter gets every change in order, and what the person does on one
/// answers the notification as `herald device respond` does.
@Suite(.timeLimit(.minutes(1))) struct PresenterTests {
    /// Remembers every call; answers each presentation it is given with `answer`, if set.
    final class RecordingPresenter: Presenter {
        let calls = Mutex<[String]>([])
        private let events = Mutex<(@Sendable (PresenterEvent) async -> Void)?>(nil)
        private let answer: (@Sendable (Presentation.ID) -> PresenterEvent)?

        init(answer: (@Sendable (Presentation.ID) -> PresenterEvent)? = nil) {
            self.answer = answer
        }

        func present(_ presentation: Presentation) async {
            calls.withLock {
                $0.append("present \(presentation.id) \(presentation.card.title ?? "") actions \(presentation.actions.map(\.identifier))")
            }
            guard let answer else { return }
            // run(reporting:) starts beside the first changes: wait for it, as a real surface waits for its connection.
            while events.withLock({ $0 }) == nil { try? await Task.sleep(for: .milliseconds(1)) }
            await events.withLock({ $0 })?(answer(presentation.id))
        }

        func withdraw(_ ids: [Presentation.ID]) async {
            calls.withLock { $0.append("withdraw \(ids.map(\.description))") }
        }

        func setBadge(_ count: Int, of app: Presentation.App) async {
            calls.withLock { $0.append("badge \(app.bundleID) \(count)") }
        }

        func run(reporting events: @escaping @Sendable (PresenterEvent) async -> Void) async throws {
            self.events.withLock { $0 = events }
        }

        func waitFor(_ count: Int) async throws {
            while calls.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    private static func card(_ identifier: String, title: String, category: String? = nil) -> NotificationCard {
        NotificationCard(identifier: identifier, topic: "com.example.app", title: title, categoryIdentifier: category, date: Date())
    }

    @Test func everyPresenterGetsEveryChangeInOrder() async throws {
        let (terminal, desktop) = (RecordingPresenter(), RecordingPresenter())
        let reply = ActionRecord(
            UNTextInputNotificationAction(identifier: "reply", title: "Reply", options: [], textInputButtonTitle: "Send", textInputPlaceholder: "…"))
        let group = PresenterGroup(
            presenters: [terminal, desktop],
            describe: { card in
                Presentation(
                    card: card, app: .init(bundleID: card.topic, displayName: "Example"),
                    category: CategoryRecord(
                        UNNotificationCategory(identifier: "MESSAGE", actions: [reply.action], intentIdentifiers: [], options: [.customDismissAction])
                    ))
            }, app: { .init(bundleID: $0) })
        // The engine's calls come before anyone runs the group: they wait, in order.
        group.present(Self.card("a", title: "First", category: "MESSAGE"))
        group.present(Self.card("a", title: "Replaced"))
        group.withdraw(bundleID: "com.example.app", identifiers: ["a"])
        group.setBadge(3, of: "com.example.app")
        let running = Task { await group.run { _ in } }
        for presenter in [terminal, desktop] { try await presenter.waitFor(4) }
        let expected = [
            "present com.example.app/a First actions [\"reply\"]", "present com.example.app/a Replaced actions [\"reply\"]",
            "withdraw [\"com.example.app/a\"]", "badge com.example.app 3",
        ]
        #expect(terminal.calls.withLock { $0 } == expected)
        #expect(desktop.calls.withLock { $0 } == expected)
        running.cancel()
        await running.value
    }

    @Test func whatThePersonDoesBecomesTheResponseHeraldDeviceRespondGives() {
        let id = Presentation.ID(bundleID: "com.example.app", identifier: "order-42")
        #expect(PresenterEvent.opened(id).response == RespondRequest(bundleID: "com.example.app", identifier: "order-42", action: "open", text: nil))
        #expect(PresenterEvent.dismissed(id).response.action == "dismiss")
        #expect(PresenterEvent.action(id, identifier: "archive").response.action == "archive")
        #expect(
            PresenterEvent.reply(id, action: "reply", text: "on my way").response
                == RespondRequest(bundleID: "com.example.app", identifier: "order-42", action: "reply", text: "on my way"))
    }

    /// A notification opened on a presenter is answered: it leaves the list and every presenter withdraws it.
    @Test func anOpenedNotificationIsAnsweredAndWithdrawn() async throws {
        let directory = try TemporaryDirectory()
        let opener = RecordingPresenter { .opened($0) }
        let watcher = RecordingPresenter()
        let daemon = try DeviceDaemon(
            configuration: DeviceDaemonConfiguration(dataDirectory: directory.url), presenters: [opener, watcher],
            prompt: GrantEverything(), report: { _ in }
        )
        let running = Task { try await daemon.run() }
        let app = "com.example.app"
        try await daemon.engine.changeSettings(of: app, to: .answered(true, options: [.alert]))
        let content = UNMutableNotificationContent()
        content.title = "Tap me"
        let fired = try #require(
            try await daemon.engine.add(
                try RequestRecord(UNNotificationRequest(identifier: "tap", content: content, trigger: nil)), of: app, now: Date()
            ))
        try await daemon.engine.complete(fired, options: [.banner, .list])
        try await watcher.waitFor(2)
        #expect(watcher.calls.withLock { $0 } == ["present com.example.app/tap Tap me actions []", "withdraw [\"com.example.app/tap\"]"])
        #expect(try await daemon.engine.delivered(of: app).isEmpty)
        running.cancel()
        _ = try? await running.value
    }
}

private struct GrantEverything: AuthorizationPrompt {
    func ask(bundleID: String, options: UNAuthorizationOptions) async -> Bool? { true }
}
