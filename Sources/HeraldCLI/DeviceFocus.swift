import ArgumentParser
import Foundation
import HeraldWire
import UserNotifications

/// `herald device focus`: iOS's Focus (Control Center and Settings › Focus) for this machine.
struct DeviceFocus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus",
        abstract: "Show or change the Focus: while it is on, notifications are silenced except those it lets through.",
        discussion: """
            `on` turns it on until `off`; `until TIME` until then (HH:MM, a duration like 45m or 2h, or an ISO 8601 \
            date). It is also on during its schedules and, with --follow-desktop on (the default), while the desktop's \
            own do-not-disturb is. Critical alerts always break through; time-sensitive notifications do when the \
            Focus allows them (the default) and the app's Time Sensitive setting is on; allowed apps do; an app with a \
            Focus filter alerts only for notifications whose filterCriteria the filter names. The device daemon reads \
            the change at once.
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable { case on, off, until, status }

    @Argument(help: "on, off, until TIME, or status (the default).")
    var action: Action = .status

    @Argument(help: "With `until`: HH:MM, a duration (45m, 2h), or an ISO 8601 date and time.")
    var time: String?

    @Option(help: "The Focus's name, shown with what it silenced (default: Do Not Disturb).")
    var name: String?

    @Option(help: "Let this app's notifications alert during the Focus; repeat for several.")
    var allow: [String] = []

    @Option(help: "Take an app off the allowed list; repeat for several.")
    var disallow: [String] = []

    @Option(
        name: .customLong("allow-person"),
        help: "Let messages from this person (a name or handle, as the app's intent gives it) alert; repeat for several.")
    var allowPerson: [String] = []

    @Option(name: .customLong("disallow-person"), help: "Take a person off the allowed list; repeat for several.")
    var disallowPerson: [String] = []

    @Option(name: .customLong("time-sensitive"), help: "Let time-sensitive notifications break through: on or off.")
    var timeSensitive: DeviceSettings.Switch?

    @Option(help: "Turn it on at these times, like 'weekdays 22:00-07:00' or 'sat,sun 09:00-12:00'; repeat for several.")
    var schedule: [String] = []

    @Flag(name: .customLong("clear-schedules"), help: "Remove every schedule (before adding those given).")
    var clearSchedules = false

    @Option(name: .customLong("follow-desktop"), help: "Be on while the desktop's own do-not-disturb is: on or off.")
    var followDesktop: DeviceSettings.Switch?

    @Option(
        help:
            "A Focus filter: APP=CRITERIA lets APP's notifications with that filterCriteria alert, and silences the app's others; repeat for several."
    )
    var filter: [String] = []

    @Option(name: .customLong("clear-filter"), help: "Remove an app's Focus filter; repeat for several.")
    var clearFilter: [String] = []

    @Option(name: .customLong("data-dir"), help: "Where apps keep their notification state (default: $HERALD_DATA_DIR, else $XDG_DATA_HOME/herald).")
    var dataDirectory: String = AppIdentity.dataDirectory().path

    @Flag(help: "Print the Focus as JSON.")
    var json = false

    func validate() throws {
        if action == .until, time == nil { throw ValidationError("`until` takes a time: herald device focus until 18:30 (or 45m, 2h)") }
        if action != .until, let time { throw ValidationError("unexpected '\(time)': only `until` takes a time") }
        for item in filter where Self.filterParts(item) == nil {
            throw ValidationError("--filter takes APP=CRITERIA, like com.example.mail=work (not '\(item)')")
        }
        for spec in schedule {
            do throws(Focus.TextError) { _ = try Focus.Schedule(parsing: spec) } catch { throw ValidationError("--schedule: \(error)") }
        }
        if let name, name.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--name needs some text") }
    }

    private static func filterParts(_ text: String) -> (app: String, criteria: String)? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let app = String(text[..<equals]), criteria = String(text[text.index(after: equals)...])
        return app.isEmpty || criteria.isEmpty ? nil : (app, criteria)
    }

    func run() async throws {
        let store = try openDeviceStore(dataDirectory: dataDirectory)
        let now = Date()
        var focus = try store.focus()
        let before = focus
        switch action {
        case .on:
            focus.isOn = true
            focus.until = nil
        case .off:
            focus.isOn = false
            focus.until = nil
        case .until:
            do throws(Focus.TextError) {
                focus.until = try Focus.end(parsing: time ?? "", now: now, calendar: .current)
            } catch {
                throw ValidationError("\(error)")
            }
            focus.isOn = true
        case .status:
            break
        }
        if let name { focus.name = name.trimmingCharacters(in: .whitespaces) }
        focus.allowedApps.formUnion(allow)
        focus.allowedApps.subtract(disallow)
        focus.allowedPeople.formUnion(allowPerson)
        focus.allowedPeople.subtract(disallowPerson)
        if let timeSensitive { focus.allowsTimeSensitive = timeSensitive == .on }
        if clearSchedules { focus.schedules = [] }
        for spec in schedule {
            let added = try Focus.Schedule(parsing: spec)
            if !focus.schedules.contains(added) { focus.schedules.append(added) }
        }
        if let followDesktop { focus.followsDesktop = followDesktop == .on }
        for app in clearFilter { focus.filters[app] = nil }
        for item in filter {
            guard let (app, criteria) = Self.filterParts(item) else { continue }
            focus.filters[app, default: []].insert(criteria)
        }
        if focus != before { try store.setFocus(focus) }
        let reason = focus.reason(at: now, calendar: .current, desktopDoNotDisturb: false)
        printNow(json ? Self.json(focus, reason: reason) : Self.text(focus, reason: reason))
    }

    static func describe(_ reason: Focus.Reason?) -> String {
        switch reason {
        case .manual(let until?)?: "on until \(until.formatted(date: .abbreviated, time: .shortened))"
        case .manual(nil)?: "on"
        case .schedule?: "on (scheduled)"
        case .desktop?: "on (the desktop's do-not-disturb)"
        case nil: "off"
        }
    }

    static func text(_ focus: Focus, reason: Focus.Reason?) -> String {
        var lines = ["\(focus.name): \(describe(reason))"]
        var allows = focus.allowsTimeSensitive ? ["time-sensitive notifications"] : []
        allows += focus.allowedApps.sorted()
        allows += focus.allowedPeople.sorted().map { "messages from \($0)" }
        lines.append("  allows critical alerts" + allows.map { ", " + $0 }.joined())
        if !focus.schedules.isEmpty { lines.append("  schedules: " + focus.schedules.map(\.text).joined(separator: "; ")) }
        lines.append(focus.followsDesktop ? "  follows the desktop's do-not-disturb" : "  ignores the desktop's do-not-disturb")
        for (app, criteria) in focus.filters.sorted(by: { $0.key < $1.key }) {
            lines.append("  filter \(app): \(criteria.sorted().joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ focus: Focus, reason: Focus.Reason?) -> String {
        var fields: [String: JSONValue] = [
            "name": .string(focus.name), "on": .bool(reason != nil),
            "allowsTimeSensitive": .bool(focus.allowsTimeSensitive),
            "allowedApps": .array(focus.allowedApps.sorted().map(JSONValue.string)),
            "allowedPeople": .array(focus.allowedPeople.sorted().map(JSONValue.string)),
            "schedules": .array(focus.schedules.map { .string($0.text) }),
            "followsDesktop": .bool(focus.followsDesktop),
            "filters": .object(focus.filters.mapValues { .array($0.sorted().map(JSONValue.string)) }),
        ]
        switch reason {
        case .manual(let until)?:
            fields["reason"] = .string("manual")
            if let until { fields["until"] = .string(until.ISO8601Format()) }
        case .schedule?: fields["reason"] = .string("schedule")
        case .desktop?: fields["reason"] = .string("desktop")
        case nil: break
        }
        return String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self)
    }
}
