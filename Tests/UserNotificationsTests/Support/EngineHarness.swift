import CoreLocation
import Foundation
import HeraldTesting
import Synchronization
import UserNotifications

/// Answers authorization requests as scripted and counts how often it was asked.
final class ScriptedPrompt: AuthorizationPrompt {
    private let answer: Bool?
    private let asked = Mutex(0)

    init(answer: Bool?) { self.answer = answer }

    var timesAsked: Int { asked.withLock { $0 } }

    func ask(bundleID: String, options: UNAuthorizationOptions) async -> Bool? {
        asked.withLock { $0 += 1 }
        return answer
    }
}

/// Keeps what would have been shown, withdrawn and badged.
final class RecordingPresenter: NotificationPresenter {
    private let cards = Watched<[NotificationCard]>([])
    private let changes = Mutex<[String]>([])
    private let summaries = Watched<[NotificationSummary]>([])
    var shown: [NotificationCard] { cards.value }
    /// The scheduled summaries presented, in order.
    var summariesShown: [NotificationSummary] { summaries.value }
    /// Waits until `count` cards went up, at most 10 s; whether they did.
    func waitUntilShown(_ count: Int) async -> Bool { await cards.wait { $0.count >= count } }
    /// `withdraw BUNDLE_ID a,b` and `badge BUNDLE_ID N`, in order.
    var otherChanges: [String] { changes.withLock { $0 } }
    func present(_ card: NotificationCard) { cards.update { $0.append(card) } }
    func withdraw(bundleID: String, identifiers: [String]) {
        changes.withLock { $0.append("withdraw \(bundleID) \(identifiers.joined(separator: ","))") }
    }
    func setBadge(_ count: Int, of bundleID: String) { changes.withLock { $0.append("badge \(bundleID) \(count)") } }
    func presentSummary(_ summary: NotificationSummary) { summaries.update { $0.append(summary) } }
}

/// An engine over a store in a temporary directory, New York time, a fixed start date.
struct EngineHarness {
    static let app = "com.example.tests"
    static let start = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28T20:26:40Z

    let directory: TemporaryDirectory
    let prompt: ScriptedPrompt
    let presenter = RecordingPresenter()
    let engine: LocalEngine

    init(answer: Bool? = true, directory: TemporaryDirectory? = nil, prompt: ScriptedPrompt? = nil) throws {
        self.directory = try directory ?? TemporaryDirectory()
        self.prompt = prompt ?? ScriptedPrompt(answer: answer)
        engine = try Self.engine(in: self.directory, prompt: self.prompt, presenter: presenter)
    }

    /// Another engine over the same files: the app (or machine) restarted.
    func restarted() throws -> EngineHarness {
        try EngineHarness(directory: directory, prompt: prompt)
    }

    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/New_York")!
        return calendar
    }

    var attachmentDirectory: URL { directory.url.appendingPathComponent("attachments/\(Self.app)") }
    var bundleDirectory: URL { directory.url.appendingPathComponent("bundle") }

    private static func engine(in directory: TemporaryDirectory, prompt: ScriptedPrompt, presenter: RecordingPresenter) throws -> LocalEngine {
        let store = try NotificationStore(path: directory.url.appendingPathComponent("notifications.sqlite").path)
        let root = directory.url.appendingPathComponent("attachments")
        let bundle = directory.url.appendingPathComponent("bundle")
        return LocalEngine(
            store: store, calendar: calendar, prompt: prompt, presenter: presenter,
            attachments: { AttachmentStore(directory: root.appendingPathComponent($0), bundleDirectory: bundle, capacity: 1_000_000) }
        )
    }

    /// Authorizes the test app for alerts, sounds and badges.
    func authorize() async throws {
        _ = try await engine.requestAuthorization(of: Self.app, options: [.alert, .sound, .badge])
    }

    func add(_ identifier: String, title: String = "Hello", badge: Int? = nil, trigger: UNNotificationTrigger?, at now: Date = start) async throws
        -> LocalEngine.Fired?
    {
        let content = UNMutableNotificationContent()
        content.title = title
        content.badge = badge.map { NSNumber(value: $0) }
        return try await engine.add(
            try RequestRecord(UNNotificationRequest(identifier: identifier, content: content, trigger: trigger)), of: Self.app, now: now)
    }

    func pendingIDs() async throws -> [String] {
        try await engine.pending(of: Self.app).map(\.identifier).sorted()
    }

    func deliveredIDs() async throws -> [String] {
        try await engine.delivered(of: Self.app).map(\.request.identifier)
    }

    /// Fires what is due at `now` and completes each with `options`.
    @discardableResult
    func tick(at now: Date, options: UNNotificationPresentationOptions = [.banner, .list, .sound, .badge]) async throws -> [LocalEngine.Fired] {
        let fired = try await engine.tick(now: now, app: nil)
        for item in fired { try await engine.complete(item, options: options) }
        return fired
    }
}

/// The code of the UNError `body` throws; nil when it throws nothing or something else.
func unError(_ body: () async throws -> Void) async -> UNError.Code? {
    do {
        try await body()
        return nil
    } catch let error as UNError {
        return error.code
    } catch {
        return nil
    }
}
