import CoreLocation
import Foundation
import HeraldTesting
import Testing
import UserNotifications

/// The engine with an injected clock and time zone: replacement, the 64 limit, firing, persistence, limits.
@Suite struct EngineTests {
    let start = EngineHarness.start

    @Test func anIdentifierReplacesItsPendingRequest() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        _ = try await harness.add("a", title: "first", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false))
        _ = try await harness.add("a", title: "second", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 120, repeats: false))
        let pending = try await harness.engine.pending(of: EngineHarness.app)
        #expect(pending.map(\.identifier) == ["a"])
        #expect(pending.first?.content.title == "second")
        #expect(try await harness.tick(at: start.addingTimeInterval(61)).isEmpty)  // the replaced 60 s one is gone
        #expect(try await harness.tick(at: start.addingTimeInterval(121)).map(\.notification.request.content.title) == ["second"])
    }

    @Test func anIdentifierReplacesItsDeliveredNotificationAndMovesItToTheTop() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        for (id, delay) in [("a", 10.0), ("b", 20.0)] {
            _ = try await harness.add(id, trigger: UNTimeIntervalNotificationTrigger(timeInterval: delay, repeats: false))
        }
        try await harness.tick(at: start.addingTimeInterval(30))
        #expect(try await harness.deliveredIDs() == ["b", "a"])
        // A nil trigger delivers now; the same identifier replaces "a", re-alerts and moves it to the top.
        let now = start.addingTimeInterval(40)
        let fired = try #require(try await harness.add("a", title: "again", trigger: nil, at: now))
        try await harness.engine.complete(fired, options: [.banner, .list])
        #expect(try await harness.deliveredIDs() == ["a", "b"])
        #expect(try await harness.engine.delivered(of: EngineHarness.app).first?.request.content.title == "again")
        #expect(harness.presenter.shown.map(\.title) == ["Hello", "Hello", "again"])
    }

    /// Presenters hear of what leaves the list and of badge numbers, not only of what is shown.
    @Test func thePresenterHearsOfWithdrawalsAndBadges() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        for id in ["a", "b", "c"] {
            let fired = try #require(try await harness.add(id, badge: id == "c" ? 7 : nil, trigger: nil))
            try await harness.engine.complete(fired, options: [.banner, .list, .badge])
        }
        try await harness.engine.removeDelivered(of: EngineHarness.app, identifiers: ["a"])
        try await harness.engine.setBadge(2, of: EngineHarness.app)
        try await harness.engine.removeDelivered(of: EngineHarness.app, identifiers: nil)
        try await harness.engine.removeDelivered(of: EngineHarness.app, identifiers: ["gone"])  // nothing left: nothing said
        let app = EngineHarness.app
        #expect(harness.presenter.otherChanges == ["badge \(app) 7", "withdraw \(app) a", "badge \(app) 2", "withdraw \(app) b,c"])
    }

    @Test func aBatchCompletesEachNotificationAsItsAppAllows() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        func fired(_ identifier: String, of bundleID: String, badge: Int? = nil) throws -> LocalEngine.Fired {
            let content = UNMutableNotificationContent()
            content.title = identifier
            content.badge = badge.map { NSNumber(value: $0) }
            let request = try RequestRecord(UNNotificationRequest(identifier: identifier, content: content, trigger: nil))
            return LocalEngine.Fired(bundleID: bundleID, notification: NotificationRecord(date: start, request: request), lateness: 0)
        }
        let unauthorized = "com.example.never-asked"
        try await harness.engine.complete([
            (try fired("banner", of: EngineHarness.app, badge: 3), [.banner, .list, .badge]),
            (try fired("refused", of: unauthorized), [.banner, .list]),
            (try fired("listed", of: EngineHarness.app), [.list]),
        ])
        #expect(try await harness.deliveredIDs() == ["listed", "banner"])
        #expect(try await harness.engine.delivered(of: unauthorized).isEmpty)
        // The list-only one is presented too, without a banner (the page lists it; the desktop shows no bubble).
        #expect(harness.presenter.shown.map(\.title) == ["banner", "listed"])
        #expect(harness.presenter.shown.map(\.style.showsBanner) == [true, false])
        #expect(try await harness.engine.badge(of: EngineHarness.app) == 3)
    }

    @Test func sixtyFourPendingPerAppKeepingTheSoonest() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        for index in (1...70).shuffled() {
            _ = try await harness.add("n\(index)", trigger: UNTimeIntervalNotificationTrigger(timeInterval: Double(index) * 60, repeats: false))
        }
        let kept = try await harness.engine.pending(of: EngineHarness.app).map(\.identifier)
        #expect(kept.count == 64)
        #expect(Set(kept) == Set((1...64).map { "n\($0)" }))
        // A repeating request counts once however often it fires.
        _ = try await harness.add("every-minute", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true))
        let after = try await harness.engine.pending(of: EngineHarness.app).map(\.identifier)
        #expect(after.count == 64 && after.contains("every-minute") && !after.contains("n64"))
    }

    @Test func repeatingRequestsAreRescheduledAndMissedOccurrencesFireOnce() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        _ = try await harness.add("tick", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true))
        let fired = try await harness.tick(at: start.addingTimeInterval(60 * 10 + 5))  // ten occurrences missed
        #expect(fired.count == 1)
        #expect(abs(try #require(fired.first).lateness - (60 * 9 + 5)) < 0.001)
        #expect(try await harness.pendingIDs() == ["tick"])
        #expect(try await harness.engine.nextFireDate(app: nil) == start.addingTimeInterval(60 * 11))
    }

    @Test func anAppsOwnProcessFiresOnlyItsOwnRequests() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        _ = try await harness.engine.requestAuthorization(of: "com.example.other", options: [.alert])
        _ = try await harness.add("mine", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 10, repeats: false))
        let content = UNMutableNotificationContent()
        content.title = "theirs"
        let theirs = UNNotificationRequest(
            identifier: "theirs", content: content, trigger: UNTimeIntervalNotificationTrigger(timeInterval: 5, repeats: false))
        _ = try await harness.engine.add(try RequestRecord(theirs), of: "com.example.other", now: start)
        #expect(try await harness.engine.nextFireDate(app: EngineHarness.app) == start.addingTimeInterval(10))
        let fired = try await harness.engine.tick(now: start.addingTimeInterval(20), app: EngineHarness.app)
        #expect(fired.map(\.notification.request.identifier) == ["mine"])
        #expect(try await harness.engine.pending(of: "com.example.other").map(\.identifier) == ["theirs"])
    }

    @Test func aRequestReplacedAfterItWasReadAheadDoesNotFire() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        _ = try await harness.add("a", title: "old", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 10, repeats: false))
        _ = try await harness.add("b", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 10, repeats: false))
        let prepared = try await harness.engine.prepare(dueBy: start.addingTimeInterval(10), app: nil)
        #expect(prepared.count == 2)
        _ = try await harness.add(
            "a", title: "new", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 100, repeats: false), at: start.addingTimeInterval(5))
        let fired = try await harness.engine.settle(prepared, now: start.addingTimeInterval(10))
        #expect(fired.map(\.notification.request.identifier) == ["b"])
        #expect(try await harness.engine.pending(of: EngineHarness.app).map(\.content.title) == ["new"])
    }

    @Test func calendarTriggersFireAtTheMatchingLocalTime() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        let components = DateComponents(hour: 8, minute: 30)
        _ = try await harness.add("morning", trigger: UNCalendarNotificationTrigger(dateMatching: components, repeats: true))
        let next = try #require(try await harness.engine.nextFireDate(app: nil))
        let local = EngineHarness.calendar.dateComponents([.year, .month, .day, .hour, .minute], from: next)
        #expect(local.hour == 8 && local.minute == 30 && local.day == 29 && local.month == 5)
        #expect(try await harness.tick(at: next).count == 1)
        #expect(try await harness.engine.nextFireDate(app: nil) == next.addingTimeInterval(24 * 3600))
    }

    @Test func floatingCalendarRequestsMoveWithTheSystemTimeZone() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        _ = try await harness.add("morning", trigger: UNCalendarNotificationTrigger(dateMatching: DateComponents(hour: 8, minute: 30), repeats: true))
        var tokyo = Calendar(identifier: .gregorian)
        tokyo.timeZone = TimeZone(identifier: "Asia/Tokyo")!
        try await harness.engine.reschedule(now: start, calendar: tokyo, app: nil)
        let next = try #require(try await harness.engine.nextFireDate(app: nil))
        let local = tokyo.dateComponents([.hour, .minute], from: next)
        #expect(local.hour == 8 && local.minute == 30)
        #expect(next > start && next.timeIntervalSince(start) <= 24 * 3600)
    }

    @Test func stateSurvivesARestartAndMissedOneShotTriggersFireOnStart() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        _ = try await harness.add("later", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 300, repeats: false))
        _ = try await harness.add("listed", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 1, repeats: false))
        try await harness.tick(at: start.addingTimeInterval(2))
        let category = UNNotificationCategory(identifier: "MESSAGE", actions: [], intentIdentifiers: [], options: [])
        try await harness.engine.setCategories([CategoryRecord(category)], of: EngineHarness.app)
        try await harness.engine.setBadge(7, of: EngineHarness.app)

        let again = try harness.restarted()
        #expect(try await again.pendingIDs() == ["later"])
        #expect(try await again.deliveredIDs() == ["listed"])
        #expect(try await again.engine.categories(of: EngineHarness.app).map(\.identifier) == ["MESSAGE"])
        #expect(try await again.engine.badge(of: EngineHarness.app) == 7)
        #expect(try await again.engine.settings(of: EngineHarness.app).authorizationStatus == .authorized)
        // The machine was off when "later" was due: it fires at the first tick after the start.
        let fired = try await again.tick(at: start.addingTimeInterval(3600))
        #expect(fired.map(\.notification.request.identifier) == ["later"])
        #expect(abs(try #require(fired.first).lateness - 3300) < 0.001)
        #expect(again.prompt.timesAsked == 1)
    }

    @Test func presentationOptionsDecideWhatIsListedShownAndBadged() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        for (id, options) in [("none", UNNotificationPresentationOptions()), ("list", .list), ("banner", .banner), ("badge", [.badge, .list])] {
            let fired = try #require(try await harness.add(id, badge: 5, trigger: nil))
            try await harness.engine.complete(fired, options: options)
        }
        #expect(try await harness.deliveredIDs().sorted() == ["badge", "list"])
        // What joins the list is presented for the list's surfaces; only the banner shows one.
        #expect(harness.presenter.shown.map(\.identifier) == ["list", "banner", "badge"])
        #expect(harness.presenter.shown.filter(\.style.showsBanner).map(\.identifier) == ["banner"])
        #expect(try await harness.engine.badge(of: EngineHarness.app) == 5)
    }

    @Test func locationRequestsFireOnEntry() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        let office = CLCircularRegion(center: CLLocationCoordinate2D(latitude: 52.52, longitude: 13.405), radius: 200, identifier: "office")
        office.notifyOnEntry = true
        office.notifyOnExit = false
        _ = try await harness.add("arrived", trigger: UNLocationNotificationTrigger(region: office, repeats: false))
        let away = CLLocationCoordinate2D(latitude: 52.50, longitude: 13.40)
        #expect(try await harness.engine.updateLocation(away, now: start, app: nil).isEmpty)  // first fix: where we are
        let inside = CLLocationCoordinate2D(latitude: 52.5201, longitude: 13.4051)
        let fired = try await harness.engine.updateLocation(inside, now: start.addingTimeInterval(60), app: nil)
        #expect(fired.map(\.notification.request.identifier) == ["arrived"])
        #expect(try await harness.pendingIDs().isEmpty)
    }

    @Test func badRequestsGetApplesErrors() async throws {
        let harness = try EngineHarness()
        try await harness.authorize()
        #expect(
            await unError {
                _ = try await harness.add("zero", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 0, repeats: false))
            } == .notificationInvalidNoDate)
        #expect(
            await unError {
                _ = try await harness.add("fast", trigger: UNTimeIntervalNotificationTrigger(timeInterval: 30, repeats: true))
            } == .notificationInvalidNoDate)
        #expect(
            await unError {
                let empty = UNNotificationRequest(identifier: "empty", content: UNMutableNotificationContent(), trigger: nil)
                _ = try await harness.engine.add(try RequestRecord(empty), of: EngineHarness.app, now: start)
            } == .notificationInvalidNoContent)
        #expect(await unError { try await harness.engine.setBadge(-1, of: EngineHarness.app) } == .badgeInputInvalid)
        #expect(try await harness.pendingIDs().isEmpty)
        // A one-shot date in the past is accepted and never fires.
        let past = UNCalendarNotificationTrigger(dateMatching: DateComponents(year: 2020, month: 1, day: 1, hour: 9), repeats: false)
        #expect(try await harness.add("past", trigger: past) == nil)
        #expect(try await harness.pendingIDs().isEmpty)
    }

    @Test func aCorruptStoreIsMovedAsideNotDeleted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("notifications.sqlite").path
        try Data(String(repeating: "not a database ", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        let store = try NotificationStore(path: path)
        let aside = try #require(store.movedAside)
        #expect(try String(contentsOfFile: aside, encoding: .utf8).hasPrefix("not a database"))
        #expect(try store.pending(of: EngineHarness.app).isEmpty)
    }
}
