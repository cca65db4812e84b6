import Foundation
import Testing

@testable import UserNotifications

@Suite struct CalendarTriggerTests {
    func next(_ components: DateComponents, after text: String, in calendar: Calendar = Dates.newYork) -> Date? {
        UNCalendarNotificationTrigger(dateMatching: components, repeats: true).nextTriggerDate(after: Dates.date(text), calendar: calendar)
    }

    /// The successive firings of a repeating trigger from `start`.
    func firings(_ components: DateComponents, from text: String, count: Int, in calendar: Calendar = Dates.newYork) -> [Date] {
        let trigger = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
        var dates: [Date] = []
        var after = Dates.date(text)
        while dates.count < count, let date = trigger.nextTriggerDate(after: after, calendar: calendar) {
            dates.append(date)
            after = date
        }
        return dates
    }

    @Test func dailyTimeInASpringForwardGapFiresAfterTheGapThatDay() {
        let daily = DateComponents(hour: 2, minute: 30)
        #expect(
            firings(daily, from: "2026-03-07T12:00:00-05:00", count: 3) == [
                Dates.date("2026-03-08T03:30:00-04:00"),  // 02:30 does not exist: 03:30, not the next day
                Dates.date("2026-03-09T02:30:00-04:00"),
                Dates.date("2026-03-10T02:30:00-04:00"),
            ])
        #expect(next(daily, after: "2026-03-08T01:59:00-05:00") == Dates.date("2026-03-08T03:30:00-04:00"))
    }

    @Test func dailyTimeInAFallBackOverlapFiresOnceAtTheFirst() {
        let daily = DateComponents(hour: 1, minute: 30)
        #expect(
            firings(daily, from: "2026-10-31T12:00:00-04:00", count: 3) == [
                Dates.date("2026-11-01T01:30:00-04:00"),
                Dates.date("2026-11-02T01:30:00-05:00"),
                Dates.date("2026-11-03T01:30:00-05:00"),
            ])
        // Asked from between the two 01:30s (Foundation alone answers the second one here).
        #expect(next(daily, after: "2026-11-01T01:45:00-04:00") == Dates.date("2026-11-02T01:30:00-05:00"))
        #expect(next(daily, after: "2026-11-01T01:30:01-04:00") == Dates.date("2026-11-02T01:30:00-05:00"))
    }

    @Test func hourlyTriggerFiresInBothRepeatedHoursAndOnceAroundTheGap() {
        let hourly = DateComponents(minute: 30)
        #expect(
            firings(hourly, from: "2026-11-01T00:00:00-04:00", count: 4) == [
                Dates.date("2026-11-01T00:30:00-04:00"), Dates.date("2026-11-01T01:30:00-04:00"),
                Dates.date("2026-11-01T01:30:00-05:00"), Dates.date("2026-11-01T02:30:00-05:00"),
            ])
        #expect(
            firings(hourly, from: "2026-03-08T00:00:00-05:00", count: 3) == [
                Dates.date("2026-03-08T00:30:00-05:00"), Dates.date("2026-03-08T01:30:00-05:00"),
                Dates.date("2026-03-08T03:30:00-04:00"),
            ])
    }

    @Test func theThirtyFirstFiresOnlyInMonthsThatHaveOne() {
        let dates = firings(DateComponents(day: 31, hour: 9), from: "2026-01-01T00:00:00-05:00", count: 7)
        let months = dates.map { Dates.newYork.component(.month, from: $0) }
        #expect(months == [1, 3, 5, 7, 8, 10, 12])
        #expect(dates.allSatisfy { Dates.newYork.component(.day, from: $0) == 31 && Dates.newYork.component(.hour, from: $0) == 9 })
    }

    @Test(arguments: [
        ("2026-01-01T00:00:00-05:00", "2028-02-29T09:00:00-05:00"),
        ("2028-02-29T09:00:00-05:00", "2032-02-29T09:00:00-05:00"),
        ("2024-01-15T00:00:00-05:00", "2024-02-29T09:00:00-05:00"),
        ("2097-03-01T00:00:00-05:00", "2104-02-29T09:00:00-05:00"),  // 2100 is not a leap year
    ])
    func februaryTwentyNinthFiresOnlyInLeapYears(after: String, expected: String) {
        #expect(next(DateComponents(month: 2, day: 29, hour: 9), after: after) == Dates.date(expected))
    }

    @Test func theThirtiethSkipsFebruary() {
        #expect(next(DateComponents(day: 30, hour: 8), after: "2026-02-01T00:00:00-05:00") == Dates.date("2026-03-30T08:00:00-04:00"))
    }

    @Test func impossibleComponentsNeverFire() {
        #expect(next(DateComponents(month: 2, day: 30), after: "2026-01-01T00:00:00-05:00") == nil)
        #expect(next(DateComponents(hour: 25), after: "2026-01-01T00:00:00-05:00") == nil)
    }

    @Test func weekdayOneIsSunday() throws {
        let date = try #require(next(DateComponents(hour: 10, weekday: 1), after: "2026-01-06T00:00:00-05:00"))
        #expect(date == Dates.date("2026-01-11T10:00:00-05:00"))
        #expect(Dates.newYork.component(.weekday, from: date) == 1)
        // Not affected by the calendar's first weekday.
        var mondayFirst = Dates.newYork
        mondayFirst.firstWeekday = 2
        #expect(next(DateComponents(hour: 10, weekday: 1), after: "2026-01-06T00:00:00-05:00", in: mondayFirst) == date)
    }

    @Test func weekdayOrdinalPicksTheNthWeekdayOfTheMonth() {
        #expect(
            next(DateComponents(hour: 9, weekday: 2, weekdayOrdinal: 1), after: "2026-01-06T00:00:00-05:00")
                == Dates.date("2026-02-02T09:00:00-05:00"))
        // Fifth Fridays: January 2026, then none until May.
        #expect(
            firings(DateComponents(hour: 10, weekday: 6, weekdayOrdinal: 5), from: "2026-01-01T00:00:00-05:00", count: 2) == [
                Dates.date("2026-01-30T10:00:00-05:00"), Dates.date("2026-05-29T10:00:00-04:00"),
            ])
    }

    @Test func componentsWithATimeZoneFireAtThatInstantAnywhere() {
        var tokyoNine = DateComponents(hour: 9, minute: 0)
        tokyoNine.timeZone = TimeZone(identifier: "Asia/Tokyo")
        let expected = Dates.date("2026-01-07T09:00:00+09:00")
        for zone in ["America/New_York", "Europe/Paris", "Pacific/Auckland", "UTC"] {
            #expect(next(tokyoNine, after: "2026-01-06T14:00:00+09:00", in: Dates.calendar(zone)) == expected)
        }
    }

    @Test func componentsWithoutATimeZoneFloatInTheCalendarsZone() {
        let nine = DateComponents(hour: 9, minute: 0)
        #expect(next(nine, after: "2026-01-06T00:00:00Z", in: Dates.calendar("America/New_York")) == Dates.date("2026-01-06T14:00:00Z"))
        #expect(next(nine, after: "2026-01-06T00:00:00Z", in: Dates.calendar("Europe/Paris")) == Dates.date("2026-01-06T08:00:00Z"))
        // Across the spring-forward change the wall clock stays at 09:00: the instant moves an hour.
        #expect(
            firings(nine, from: "2026-03-07T00:00:00-05:00", count: 2) == [
                Dates.date("2026-03-07T09:00:00-05:00"), Dates.date("2026-03-08T09:00:00-04:00"),
            ])
        var utcNine = nine
        utcNine.timeZone = TimeZone(identifier: "UTC")
        #expect(
            firings(utcNine, from: "2026-03-07T00:00:00-05:00", count: 2) == [
                Dates.date("2026-03-07T09:00:00Z"), Dates.date("2026-03-08T09:00:00Z"),
            ])
    }

    @Test func aPastOneShotDateNeverFiresAndAFutureOneFiresOnce() {
        let past = UNCalendarNotificationTrigger(dateMatching: DateComponents(year: 2020, month: 5, day: 1, hour: 9), repeats: false)
        #expect(past.nextTriggerDate(after: Dates.date("2026-01-01T00:00:00Z"), calendar: Dates.newYork) == nil)
        #expect(past.nextTriggerDate() == nil)
        let future = UNCalendarNotificationTrigger(dateMatching: DateComponents(year: 2027, month: 5, day: 1, hour: 9), repeats: false)
        let date = future.nextTriggerDate(after: Dates.date("2026-01-01T00:00:00Z"), calendar: Dates.newYork)
        #expect(date == Dates.date("2027-05-01T09:00:00-04:00"))
        #expect(date.flatMap { future.nextTriggerDate(after: $0, calendar: Dates.newYork) } == nil)
    }

    @Test func scheduledDateDoesNotMatterToCalendarTriggers() {
        let trigger = UNCalendarNotificationTrigger(dateMatching: DateComponents(hour: 8), repeats: true)
        let after = Dates.date("2026-06-01T12:00:00-04:00")
        let expected = Dates.date("2026-06-02T08:00:00-04:00")
        #expect(trigger.nextFireDate(after: after, scheduledAt: .distantPast, calendar: Dates.newYork) == expected)
        #expect(trigger.nextFireDate(after: after, scheduledAt: after, calendar: Dates.newYork) == expected)
    }

    @Test func publicNextTriggerDateUsesNowAndTheCurrentCalendar() throws {
        let trigger = UNCalendarNotificationTrigger(dateMatching: DateComponents(minute: 0), repeats: true)
        let before = Date()
        let date = try #require(trigger.nextTriggerDate())
        #expect(date > before && date <= Date().addingTimeInterval(3600))
        #expect(Calendar.current.component(.minute, from: date) == 0)
    }

    @Test func emptyComponentsAreRefused() {
        let trigger = UNCalendarNotificationTrigger(dateMatching: DateComponents(), repeats: false)
        #expect(throws: UNError(.notificationInvalidNoDate, "the calendar trigger's date components have no date or time field")) {
            try trigger.validate()
        }
        #expect(trigger.nextTriggerDate(after: Date(), calendar: Dates.newYork) == nil)
        #expect(throws: Never.self) { try UNCalendarNotificationTrigger(dateMatching: DateComponents(weekday: 2), repeats: true).validate() }
    }

    @Test func equalityIsByComponentsAndRepetition() {
        let components = DateComponents(hour: 8, minute: 30)
        #expect(
            UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
                == UNCalendarNotificationTrigger(dateMatching: components, repeats: true))
        #expect(
            UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
                != UNCalendarNotificationTrigger(dateMatching: components, repeats: false))
        #expect(UNCalendarNotificationTrigger(dateMatching: components, repeats: true).dateComponents == components)
    }
}
