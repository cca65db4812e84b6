import Foundation

/// What the engine tells whoever shows notifications: a notification to show (or to replace, by identifier), ones
/// taken out of the list, a new badge number. Calls come in the order of the changes, from the engine, and must
/// not block: an app's own terminal prints at once; the device daemon queues them for its presenters.
package protocol NotificationPresenter: Sendable {
    /// Shows `card`, replacing the one shown with the same app and identifier, if any.
    func present(_ card: NotificationCard)
    /// These delivered notifications of `bundleID` left the list (the app removed them, or they were answered).
    func withdraw(bundleID: String, identifiers: [String])
    /// The badge number of `bundleID` is now `count`.
    func setBadge(_ count: Int, of bundleID: String)
    /// The scheduled summary arrived: its notifications are in the list now.
    func presentSummary(_ summary: NotificationSummary)
}

extension NotificationPresenter {
    package func withdraw(bundleID: String, identifiers: [String]) {}
    package func setBadge(_ count: Int, of bundleID: String) {}
    package func presentSummary(_ summary: NotificationSummary) {}
}

/// Cards or JSON lines on standard error, leaving standard output to the app (`HERALD_PRESENTER=terminal|json|none`).
package struct TerminalPresenter: NotificationPresenter {
    package enum Style: String, Sendable { case terminal, json, none }
    private let style: Style

    package init(style: Style) { self.style = style }

    /// `HERALD_PRESENTER`: the first of `terminal`, `json` or `none` it names (a comma-separated list, as the
    /// daemon takes). Naming `desktop` here says once, on standard error, that the desktop is the device
    /// daemon's: an app running its own engine prints cards.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let names = (environment["HERALD_PRESENTER"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        self.init(style: names.lazy.compactMap(Style.init(rawValue:)).first ?? .terminal)
        if names.contains("desktop") {
            FileHandle.standardError.write(
                Data(
                    ("HERALD_PRESENTER=desktop: desktop notifications come from the device daemon; start `herald device` "
                        + "and this app presents through it (without it, notifications are printed here)\n").utf8))
        }
    }

    package func present(_ card: NotificationCard) {
        switch style {
        case .terminal: FileHandle.standardError.write(Data((card.text + "\n").utf8))
        case .json: FileHandle.standardError.write(Data((card.jsonLine + "\n").utf8))
        case .none: break
        }
    }

    package func presentSummary(_ summary: NotificationSummary) {
        switch style {
        case .terminal: FileHandle.standardError.write(Data((summary.text + "\n").utf8))
        case .json: FileHandle.standardError.write(Data((summary.jsonLine + "\n").utf8))
        case .none: break
        }
    }
}
