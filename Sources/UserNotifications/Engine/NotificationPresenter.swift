import Foundation

/// Shows a notification to the person: a card on the terminal, a JSON line, the desktop, a browser page.
package protocol NotificationPresenter: Sendable {
    func present(_ card: NotificationCard)
}

/// Cards or JSON lines on standard error, leaving standard output to the app (`HERALD_PRESENTER=terminal|json|none`).
package struct TerminalPresenter: NotificationPresenter {
    package enum Style: String, Sendable { case terminal, json, none }
    private let style: Style

    package init(style: Style) { self.style = style }

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(style: environment["HERALD_PRESENTER"].flatMap(Style.init(rawValue:)) ?? .terminal)
    }

    package func present(_ card: NotificationCard) {
        switch style {
        case .terminal: FileHandle.standardError.write(Data((card.text + "\n").utf8))
        case .json: FileHandle.standardError.write(Data((card.jsonLine + "\n").utf8))
        case .none: break
        }
    }
}
