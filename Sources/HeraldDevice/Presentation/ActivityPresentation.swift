package import Foundation
import HeraldWire
package import UserNotificationsUI

/// A Live Activity as a surface draws it: the view the app's widget extension drew, when it has one; else the app, a
/// title, the state's values in order and a progress bar where the state has a fraction. Either way whether it is
/// stale or ended. Redrawn whole on every change.
package struct ActivityPresentation: Sendable, Hashable {
    /// One of the state's values, as text.
    package struct Field: Sendable, Hashable {
        package var name: String
        package var value: String
    }

    package var id: String
    package var app: Presentation.App
    /// The attributes' `name` or `title` if they have one, else the app's name.
    package var title: String
    /// The attributes' other values, then the state's, by key.
    package var fields: [Field]
    /// 0…1: the state's `progress` (a fraction, or a percentage over 1).
    package var progress: Double?
    /// `active`, `stale` or `ended`.
    package var phase: String
    /// The alert of the change that made this presentation, which alerts the person again.
    package var alertTitle: String?
    package var alertBody: String?
    package var updatedAt: Date
    /// What the app's widget extension drew; nil: the default view above.
    package var view: ViewSnapshot?

    package init(_ change: ActivityChange, app: Presentation.App, now: Date = Date()) {
        let activity = change.activity
        id = activity.id
        self.app = app
        let attributes = (try? JSONValue.parse(activity.attributes))?.objectValue ?? [:]
        let state = (try? JSONValue.parse(activity.state))?.objectValue ?? [:]
        let titleKey = ["name", "title"].first { attributes[$0]?.stringValue != nil }
        title = titleKey.flatMap { attributes[$0]?.stringValue } ?? app.displayName
        fields =
            attributes.keys.sorted().filter { $0 != titleKey }.compactMap { key in attributes[key].map { Field(name: key, value: Self.text($0)) } }
            + state.keys.sorted().filter { $0 != "progress" }.compactMap { key in state[key].map { Field(name: key, value: Self.text($0)) } }
        progress = state["progress"]?.doubleValue.map { $0 > 1 ? min($0 / 100, 1) : max($0, 0) }
        phase = activity.phase == .ended ? "ended" : activity.isStale(at: now) ? "stale" : "active"
        switch change.alert {
        case .string(let text)?:
            alertTitle = text
        case .object(let alert)?:
            alertTitle = alert["title"]?.stringValue
            alertBody = alert["body"]?.stringValue
        default:
            break
        }
        updatedAt = now
    }

    /// A value as a person reads it: strings as they are, numbers without a needless fraction.
    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): flag ? "yes" : "no"
        case .null: "—"
        default: String(decoding: value.encoded(), as: UTF8.self)
        }
    }

    /// The progress as ten blocks and a percentage, for surfaces that draw text: `▰▰▰▰▰▰▱▱▱▱ 60%`.
    package var progressText: String? {
        progress.map(Self.bar)
    }

    private static func bar(_ progress: Double) -> String {
        let filled = Int((progress * 10).rounded())
        return String(repeating: "▰", count: filled) + String(repeating: "▱", count: 10 - filled) + " \(Int((progress * 100).rounded()))%"
    }

    /// The fields on one line: `status: on the way · eta: 5`.
    package var fieldsText: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: " · ")
    }

    /// What a surface that draws text shows, a line each: the widget extension's view as text (its labels, and its
    /// progress bars as ``progressText`` draws them); else the title, the fields and the progress.
    package var textLines: [String] {
        guard let view else { return [title, fieldsText, progressText].compactMap { $0 }.filter { !$0.isEmpty } }
        var lines: [String] = []
        func walk(_ node: ViewSnapshot) {
            switch node.drawing {
            case .label(let text, _, _, _, _) where !text.isEmpty: lines.append(text)
            case .progress(let value, _): lines.append(Self.bar(value))
            default: break
            }
            node.children.forEach(walk)
        }
        walk(view)
        return lines
    }

    /// The progress a surface shows beside the text (a notification server's `value` hint): the widget's first
    /// progress bar when it drew one, else the state's.
    package var shownProgress: Double? {
        guard let view else { return progress }
        func first(_ node: ViewSnapshot) -> Double? {
            if case .progress(let value, _) = node.drawing { return value }
            return node.children.lazy.compactMap(first).first
        }
        return first(view)
    }
}
