import ArgumentParser
import Foundation
import HeraldWire
import UserNotifications

/// `herald device summary`: iOS's Scheduled Summary (Settings › Notifications › Scheduled Summary) for this machine.
struct DeviceSummary: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Show or change the scheduled summary: apps in it deliver their notifications together at its times.",
        discussion: """
            The passive and active notifications of the apps in the summary wait, and arrive together at its next \
            time as one summary, most relevant first (relevanceScore). Time-sensitive and critical ones are delivered \
            at once, and direct messages when the app's Direct Messages setting is on. Turning the summary off \
            delivers what it holds within a minute. The device daemon reads the change at once.
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable { case on, off, status }

    @Argument(help: "on, off, or status (the default).")
    var action: Action = .status

    @Option(help: "The summary's times, HH:MM, replacing the ones set (default 08:00 and 18:00); repeat for several.")
    var time: [String] = []

    @Option(help: "Put an app's notifications in the summary; repeat for several.")
    var add: [String] = []

    @Option(help: "Take an app out of the summary; repeat for several.")
    var remove: [String] = []

    @Option(name: .customLong("data-dir"), help: "Where apps keep their notification state (default: $HERALD_DATA_DIR, else $XDG_DATA_HOME/herald).")
    var dataDirectory: String = AppIdentity.dataDirectory().path

    @Flag(help: "Print the summary's settings as JSON.")
    var json = false

    func validate() throws {
        for text in time where ClockTime.minutes(text) == nil {
            throw ValidationError("--time takes HH:MM, like 08:00 or 18:30 (not '\(text)')")
        }
        if time.count > 12 { throw ValidationError("a summary has at most 12 times a day (iOS allows 12)") }
    }

    func run() async throws {
        let store = try openDeviceStore(dataDirectory: dataDirectory)
        var summary = try store.summary()
        let before = summary
        switch action {
        case .on: summary.isOn = true
        case .off: summary.isOn = false
        case .status: break
        }
        if !time.isEmpty { summary.times = Array(Set(time.compactMap(ClockTime.minutes))).sorted() }
        summary.apps.formUnion(add)
        summary.apps.subtract(remove)
        if summary != before { try store.setSummary(summary) }
        let next = summary.isOn ? summary.next(after: Date(), calendar: .current) : nil
        let held = try store.heldCount()
        printNow(json ? Self.json(summary, next: next, held: held) : Self.text(summary, next: next, held: held))
    }

    static func text(_ summary: ScheduledSummary, next: Date?, held: Int) -> String {
        var lines = ["Scheduled Summary: \(summary.isOn ? "on" : "off") · at \(summary.times.map(ClockTime.text).joined(separator: ", "))"]
        lines.append("  apps: " + (summary.apps.isEmpty ? "none (add them with --add APP)" : summary.apps.sorted().joined(separator: ", ")))
        if let next { lines.append("  next: \(next.formatted(date: .abbreviated, time: .shortened)), \(held) waiting") }
        return lines.joined(separator: "\n")
    }

    static func json(_ summary: ScheduledSummary, next: Date?, held: Int) -> String {
        var fields: [String: JSONValue] = [
            "on": .bool(summary.isOn), "times": .array(summary.times.map { .string(ClockTime.text($0)) }),
            "apps": .array(summary.apps.sorted().map(JSONValue.string)), "waiting": .integer(Int64(held)),
        ]
        if let next { fields["next"] = .string(next.ISO8601Format()) }
        return String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self)
    }
}
