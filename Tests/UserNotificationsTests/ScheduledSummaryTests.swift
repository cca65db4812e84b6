import Foundation
import HeraldTesting
import Testing

@testable import UserNotifications

/// iOS 15's scheduled summary on a manual clock: what waits, when it arrives, in which order, and what does not wait.
@Suite struct ScheduledSummaryTests {
    let harness: EngineHarness
    var engine: LocalEngine { harness.engine }
    static let app = EngineHarness.app

    init() async throws {
        harness = try EngineHarness()
        try await harness.authorize()
        var settings = try await harness.engine.settings(of: Self.app)
        settings.timeSensitiveSetting = .enabled  // as for an app with the time-sensitive entitlement
        try await harness.engine.changeSettings(of: Self.app, to: settings)
    }

    /// 16:26:40 in New York (the harness's calendar).
    static let now = EngineHarness.start

    /// Today at `hour`:`minute` in New York.
    static func today(_ hour: Int, _ minute: Int = 0) -> Date {
        var parts = EngineHarness.calendar.dateComponents([.year, .month, .day], from: now)
        (parts.hour, parts.minute) = (hour, minute)
        return EngineHarness.calendar.date(from: parts)!
    }

    private func setSummary(on: Bool, apps: Set<String> = [app]) async throws {
        var summary = ScheduledSummary()
        summary.isOn = on
        summary.apps = apps
        let store = try NotificationStore(path: harness.directory.url.appendingPathComponent("notifications.sqlite").path)
        try store.setSummary(summary)
    }

    /// Fires a notification now and completes it as an app that is not running would be.
    private func deliver(
        _ identifier: String, relevance: Double = 0, level: UNNotificationInterruptionLevel = .active, at date: Date = now
    ) async throws {
        let content = UNMutableNotificationContent()
        content.title = "Title \(identifier)"
        content.body = "Body \(identifier)"
        content.relevanceScore = relevance
        content.interruptionLevel = level
        let request = try RequestRecord(UNNotificationRequest(identifier: identifier, content: content, trigger: nil))
        let fired = try #require(try await engine.add(request, of: Self.app, now: date))
        try await engine.complete([(fired, [.banner, .list, .sound])], at: date)
    }

    @Test func heldNotificationsArriveTogetherAtTheNextTimeMostRelevantFirst() async throws {
        try await setSummary(on: true)
        #expect(try await engine.settings(of: Self.app).scheduledDeliverySetting == .enabled)
        try await deliver("low", relevance: 0.2)
        try await deliver("high", relevance: 0.9)
        try await deliver("mid", relevance: 0.5)
        try await deliver("urgent", level: .timeSensitive)
        // Only the time-sensitive one went up and into the list; the rest wait for 18:00.
        #expect(harness.presenter.shown.map(\.identifier) == ["urgent"])
        #expect(try await harness.deliveredIDs() == ["urgent"])
        #expect(try await engine.nextFireDate(app: nil) == Self.today(18))

        // Not yet at 17:59.
        _ = try await engine.tick(now: Self.today(17, 59), app: nil)
        #expect(harness.presenter.summariesShown.isEmpty)

        _ = try await engine.tick(now: Self.today(18), app: nil)
        let summary = try #require(harness.presenter.summariesShown.first)
        #expect(summary.title == "Your Evening Summary" && summary.date == Self.today(18))
        #expect(summary.cards.map(\.identifier) == ["high", "mid", "low"])
        #expect(summary.cards.allSatisfy { $0.style.inSummary })
        #expect(Set(try await harness.deliveredIDs()) == ["urgent", "high", "mid", "low"])
        #expect(summary.text.contains("Your Evening Summary") && summary.text.contains("3 notifications"))
        #expect(summary.jsonLine.contains(#""event":"summary""#) && summary.jsonLine.contains(#""count":3"#))
        // Nothing is held any more: the next wake is not a summary.
        #expect(try await engine.nextFireDate(app: nil) == nil)
        _ = try await engine.tick(now: Self.today(18, 1), app: nil)
        #expect(harness.presenter.summariesShown.count == 1)
    }

    /// A notification held twice with one identifier waits once, as its last version.
    @Test func aHeldNotificationIsReplacedByItsIdentifier() async throws {
        try await setSummary(on: true)
        try await deliver("score", relevance: 0.1)
        try await deliver("score", relevance: 0.7)
        _ = try await engine.tick(now: Self.today(18), app: nil)
        let summary = try #require(harness.presenter.summariesShown.first)
        #expect(summary.cards.map(\.identifier) == ["score"] && summary.cards.first?.relevanceScore == 0.7)
    }

    /// Apps not in the summary, and everything while it is off, are delivered at once; turning it off delivers what
    /// it held at the next tick.
    @Test func appsOutsideTheSummaryAndTurningItOff() async throws {
        try await setSummary(on: true, apps: ["com.example.other"])
        #expect(try await engine.settings(of: Self.app).scheduledDeliverySetting == .disabled)
        try await deliver("direct")
        #expect(harness.presenter.shown.map(\.identifier) == ["direct"])

        try await setSummary(on: true)
        try await deliver("waiting")
        #expect(harness.presenter.shown.count == 1)
        try await setSummary(on: false)
        _ = try await engine.tick(now: Self.today(16, 30), app: nil)
        #expect(harness.presenter.summariesShown.first?.cards.map(\.identifier) == ["waiting"])
        try await deliver("after")
        #expect(harness.presenter.shown.map(\.identifier) == ["direct", "after"])
    }

    /// A morning time after midnight: held at 16:26 for 08:00 when that is the only time.
    @Test func theNextTimeMayBeTomorrow() throws {
        var summary = ScheduledSummary()
        summary.times = [8 * 60]
        let next = try #require(summary.next(after: Self.now, calendar: EngineHarness.calendar))
        #expect(next == Self.today(8).addingTimeInterval(86_400))
        #expect(ScheduledSummary.title(at: next, calendar: EngineHarness.calendar) == "Your Morning Summary")
    }
}
