import Foundation
import HeraldTesting
import HeraldWire
import Testing
import UserNotifications

@testable import HeraldDevice

/// The device's Live Activity rules on a real activity store, with time given: iOS's limits, the order of pushes,
/// and what the link is asked for.
@Suite struct ActivityCenterTests {
    static let app = "com.example.app"
    static let pushToStart = String(repeating: "ab", count: 32)
    let center: ActivityCenter
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    init() throws {
        center = ActivityCenter(store: try ActivityStore(path: TemporaryPath.make("activities", suffix: ".sqlite")))
        try center.linkAnswer(.registered(topic: Self.app, deviceToken: Self.pushToStart, kind: .pushToStart))
    }

    func push(
        _ aps: String, to token: String = ActivityCenterTests.pushToStart, channel: String? = nil, priority: Priority = .immediate,
        budget: Int = ActivityLimits.priorityBudget, at date: Date
    ) throws -> ActivityCenter.Outcome {
        let notification = LinkNotification(
            apnsID: UUID(), uniqueID: UUID(), topic: Self.app + ".push-type.liveactivity", bundleID: Self.app, deviceToken: token,
            pushType: .liveActivity, priority: priority, collapseID: nil, expiration: nil, receivedAt: 0,
            payload: Data(#"{"aps":{\#(aps)}}"#.utf8), channelID: channel)
        return try center.receive(notification, now: date, budget: budget)
    }

    @Test func priorityTenHasAnHourlyBudgetAndPriorityFiveNone() throws {
        let activity = try started(try push(startPush(), at: start))
        let token = "ef" + String(repeating: "0", count: 62)
        try center.linkAnswer(.registered(topic: Self.app, deviceToken: token, kind: .activity, activityID: activity.id))
        let update = { (timestamp: Int) in #""event":"update","timestamp":\#(timestamp),"content-state":{"n":\#(timestamp)}"# }
        for timestamp in 2...3 {
            guard case .changed = try push(update(timestamp), to: token, budget: 2, at: start) else { throw ActivityPayloadError("dropped") }
        }
        guard case .dropped(let reason) = try push(update(4), to: token, budget: 2, at: start.addingTimeInterval(3599)) else {
            throw ActivityPayloadError("the third priority-10 push of the hour was applied")
        }
        #expect(reason.contains("budget (2 an hour"))
        guard case .changed = try push(update(5), to: token, priority: .powerConsiderate, budget: 2, at: start.addingTimeInterval(3599)) else {
            throw ActivityPayloadError("a priority-5 push was charged")
        }
        guard case .changed = try push(update(6), to: token, budget: 2, at: start.addingTimeInterval(3600)) else {
            throw ActivityPayloadError("the next hour's budget did not start")
        }
    }

    func startPush(timestamp: Int = 1, extra: String = "") -> String {
        #""event":"start","timestamp":\#(timestamp),"attributes-type":"T","attributes":{"a":1},"content-state":{"n":0},"alert":"x"\#(extra)"#
    }

    func started(_ outcome: ActivityCenter.Outcome) throws -> LiveActivity {
        guard case .changed(let changes) = outcome, let first = changes.first, first.kind == .started else {
            throw ActivityPayloadError("not started: \(outcome)")
        }
        return first.activity
    }

    @Test func anActivityEndsAfterEightHoursAndLeavesFourHoursLater() throws {
        let activity = try started(try push(startPush(), at: start))
        #expect(try center.tick(now: start.addingTimeInterval(8 * 3600 - 1)).isEmpty)
        let ended = try center.tick(now: start.addingTimeInterval(8 * 3600))
        #expect(ended.map(\.kind) == [.ended] && ended.first?.activity.id == activity.id)
        #expect(try center.tick(now: start.addingTimeInterval(12 * 3600 - 1)).isEmpty)
        #expect(try center.tick(now: start.addingTimeInterval(12 * 3600)).map(\.kind) == [.dismissed])
        #expect(try center.current().isEmpty)
    }

    @Test func aStaleDateIsReportedOnceAndALaterUpdateMovesIt() throws {
        let activity = try started(try push(startPush(extra: #","stale-date":\#(Int(start.timeIntervalSince1970) + 60)"#), at: start))
        #expect(try center.tick(now: start.addingTimeInterval(59)).isEmpty)
        #expect(try center.tick(now: start.addingTimeInterval(60)).map(\.kind) == [.stale])
        #expect(try center.tick(now: start.addingTimeInterval(61)).isEmpty)
        let token = "cd" + String(repeating: "0", count: 62)
        try center.linkAnswer(.registered(topic: Self.app, deviceToken: token, kind: .activity, activityID: activity.id))
        let later = Int(start.timeIntervalSince1970) + 600
        guard
            case .changed(let changes) = try push(
                #""event":"update","timestamp":2,"content-state":{"n":1},"stale-date":\#(later)"#, to: token, at: start.addingTimeInterval(70))
        else {
            Issue.record("the update was dropped")
            return
        }
        #expect(changes.first?.activity.isStale(at: start.addingTimeInterval(70)) == false)
        #expect(try center.tick(now: start.addingTimeInterval(600)).map(\.kind) == [.stale])
    }

    @Test func iOSLimitsRefuseTheSixthActivityAndOversizedData() throws {
        for index in 0..<ActivityLimits.perApp { _ = try started(try push(startPush(timestamp: index + 1), at: start)) }
        guard case .dropped(let reason) = try push(startPush(timestamp: 99), at: start) else {
            Issue.record("a sixth activity started")
            return
        }
        #expect(reason.contains("5 active Live Activities"))
        let big = String(repeating: "x", count: 4100)
        let center = ActivityCenter(store: try ActivityStore(path: TemporaryPath.make("activities", suffix: ".sqlite")))
        try center.linkAnswer(.registered(topic: Self.app, deviceToken: Self.pushToStart, kind: .pushToStart))
        let notification = LinkNotification(
            apnsID: UUID(), uniqueID: UUID(), topic: Self.app, bundleID: Self.app, deviceToken: Self.pushToStart, pushType: .liveActivity,
            priority: .immediate, collapseID: nil, expiration: nil, receivedAt: 0,
            payload: Data(#"{"aps":{"event":"start","timestamp":1,"attributes-type":"T","attributes":{"a":"\#(big)"},"content-state":{}}}"#.utf8))
        guard case .dropped(let oversized) = try center.receive(notification, now: start) else {
            Issue.record("oversized data started an activity")
            return
        }
        #expect(oversized.contains("ActivityKit takes 4096"))
    }

    @Test func anEndWithoutADismissalDateStaysFourHoursAndOneInThePastGoesAtOnce() throws {
        let first = try started(try push(startPush(extra: #","input-push-token":1"#), at: start))
        let second = try started(try push(startPush(timestamp: 2, extra: #","input-push-token":1"#), at: start))
        let tokens = ["01", "02"].map { $0 + String(repeating: "0", count: 62) }
        try center.linkAnswer(.registered(topic: Self.app, deviceToken: tokens[0], kind: .activity, activityID: first.id))
        try center.linkAnswer(.registered(topic: Self.app, deviceToken: tokens[1], kind: .activity, activityID: second.id))
        guard case .changed(let ended) = try push(#""event":"end","timestamp":5"#, to: tokens[0], at: start) else {
            Issue.record("not ended")
            return
        }
        #expect(ended.map(\.kind) == [.ended] && ended[0].activity.dismissAt == start.addingTimeInterval(4 * 3600))
        #expect(ended[0].activity.state == Data(#"{"n":0}"#.utf8))  // an end without a state keeps the last one
        guard case .changed(let gone) = try push(#""event":"end","timestamp":5,"dismissal-date":1"#, to: tokens[1], at: start) else {
            Issue.record("not ended")
            return
        }
        #expect(gone.map(\.kind) == [.ended, .dismissed])
        // The dismissed activity's token is owed a retirement on the next link; the ended one still takes its token.
        let requests = try center.linkRequests(liveActivityApps: [Self.app])
        #expect(requests.contains(.unregister(topic: Self.app, kind: .activity, activityID: second.id)))
        #expect(requests.contains(.register(topic: Self.app, kind: .activity, activityID: first.id)))
        #expect(requests.first == .register(topic: Self.app, kind: .pushToStart))
        #expect(
            try push(#""event":"update","timestamp":9,"content-state":{"n":2}"#, to: tokens[0], at: start)
                == .dropped("activity \(first.id) has ended"))
    }

    /// `Activity.request` is refused with ActivityKit's errors past iOS's limits.
    @Test func anAppsRequestPastTheLimitsIsRefused() throws {
        func request(_ state: Data = Data(#"{"n":0}"#.utf8)) throws -> ActivityChange {
            try center.request(
                ActivityRequestRecord(
                    attributesType: "T", attributes: Data("{}".utf8), state: state, staleDate: nil, relevanceScore: nil, wantsToken: false,
                    channelID: nil), bundleID: Self.app, now: start)
        }
        let big = Data(#"{"text":""#.utf8) + Data(repeating: UInt8(ascii: "x"), count: 4100) + Data(#""}"#.utf8)
        do {
            _ = try request(big)
            Issue.record("4 KB of data was taken")
        } catch let refusal as ActivityRefusal {
            #expect(refusal.reason == "attributesTooLarge")
        }
        for _ in 0..<ActivityLimits.perApp { _ = try request() }
        do {
            _ = try request()
            Issue.record("a sixth activity was started")
        } catch let refusal as ActivityRefusal {
            #expect(refusal.reason == "targetMaximumExceeded")
        }
    }

    /// A dismissed activity is forgotten once the gateway retired its token, and no longer asked about.
    @Test func aDismissedActivityIsForgottenOnceItsTokenIsRetired() throws {
        let activity = try started(try push(startPush(extra: #","input-push-token":1"#), at: start))
        let token = "ab" + String(repeating: "1", count: 62)
        try center.linkAnswer(.registered(topic: Self.app, deviceToken: token, kind: .activity, activityID: activity.id))
        guard case .changed = try push(#""event":"end","timestamp":5,"dismissal-date":1"#, to: token, at: start) else {
            throw ActivityPayloadError("not ended")
        }
        let owed = DeviceLinkMessage.unregister(topic: Self.app, kind: .activity, activityID: activity.id)
        _ = try center.tick(now: start)
        #expect(try center.linkRequests(liveActivityApps: []).contains(owed))  // kept while the retirement is owed
        try center.linkAnswer(.unregistered(topic: Self.app, deviceToken: token, kind: .activity, activityID: activity.id))
        _ = try center.tick(now: start)
        #expect(try center.linkRequests(liveActivityApps: []).isEmpty)
        #expect(try center.store.read { db in try ActivityStore.activities(db) }.isEmpty)
    }
}
