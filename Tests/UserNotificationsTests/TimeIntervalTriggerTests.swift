import Foundation
import Testing

@testable import UserNotifications

@Suite struct TimeIntervalTriggerTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [(0.0, false), (-5, false), (.nan, false), (.infinity, false), (59, true), (59.999, true), (0, true)])
    func invalidIntervalsAreAcceptedButRefusedByValidate(interval: Double, repeats: Bool) {
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: repeats)  // no crash
        #expect(trigger.repeats == repeats)
        let error = #expect(throws: UNError.self) { try trigger.validate() }
        #expect(error?.code == .notificationInvalidNoDate)
    }

    @Test(arguments: [(1.0, false), (0.5, false), (60, true), (3600, true), (59, false)])
    func validIntervals(interval: Double, repeats: Bool) throws {
        try UNTimeIntervalNotificationTrigger(timeInterval: interval, repeats: repeats).validate()
    }

    @Test func oneShotFiresOnceAfterItsInterval() {
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 90, repeats: false)
        #expect(trigger.timeInterval == 90)
        #expect(trigger.nextTriggerDate(scheduledAt: start, after: start) == start + 90)
        #expect(trigger.nextTriggerDate(scheduledAt: start, after: start + 89.9) == start + 90)
        #expect(trigger.nextTriggerDate(scheduledAt: start, after: start + 90) == nil)
        #expect(trigger.nextTriggerDate(scheduledAt: start, after: start + 1000) == nil)
    }

    @Test func repeatingFiresEveryIntervalFromScheduling() {
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true)
        #expect(trigger.nextTriggerDate(scheduledAt: start, after: start) == start + 60)
        #expect(trigger.nextTriggerDate(scheduledAt: start, after: start + 60) == start + 120)
        #expect(trigger.nextTriggerDate(scheduledAt: start, after: start + 150) == start + 180)
        #expect(trigger.nextTriggerDate(scheduledAt: start, after: start + 86_400 * 365) == start + 86_400 * 365 + 60)
    }

    @Test func invalidIntervalNeverFires() {
        #expect(UNTimeIntervalNotificationTrigger(timeInterval: 0, repeats: true).nextTriggerDate(scheduledAt: start, after: start) == nil)
        #expect(UNTimeIntervalNotificationTrigger(timeInterval: -1, repeats: false).nextTriggerDate() == nil)
    }

    @Test func unscheduledTriggerCountsFromNow() throws {
        let before = Date()
        let date = try #require(UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: false).nextTriggerDate())
        #expect(date >= before + 3600 && date <= Date() + 3600)
    }

    @Test func scheduledTriggerCountsFromItsSchedulingDate() throws {
        let scheduled = UNTimeIntervalNotificationTrigger(timeInterval: 3600, repeats: true).scheduled(at: Date() - 5400)
        let date = try #require(scheduled.nextTriggerDate())
        #expect(abs(date.timeIntervalSinceNow - 1800) < 5)
        #expect(scheduled.repeats && scheduled.timeInterval == 3600)
        #expect(
            scheduled.nextFireDate(after: start, scheduledAt: .distantPast, calendar: Dates.newYork)
                == scheduled.nextTriggerDate(scheduledAt: scheduled.scheduledDate!, after: start))
        let past = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false).scheduled(at: Date() - 120)
        #expect(past.nextTriggerDate() == nil)
    }

    @Test func equalityIgnoresTheSchedulingDate() {
        let trigger = UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: true)
        #expect(trigger == trigger.scheduled(at: start))
        #expect(trigger != UNTimeIntervalNotificationTrigger(timeInterval: 61, repeats: true))
        #expect(trigger != UNTimeIntervalNotificationTrigger(timeInterval: 60, repeats: false))
    }

    @Test func pushAndLocationTriggersHaveNoFireDate() {
        let push = UNPushNotificationTrigger()
        #expect(!push.repeats && push.nextFireDate(after: start, scheduledAt: start, calendar: Dates.newYork) == nil)
        #expect(throws: Never.self) { try push.validate() }
    }
}
