import Foundation
package import UserNotifications

/// A card per notification on standard output, for people watching `herald device`.
package struct TerminalCardPresenter: Presenter {
    package init() {}

    package func present(_ presentation: Presentation) async {
        guard !presentation.card.style.inSummary else { return }  // the summary's box names it
        printLine(presentation.card.text)
    }

    package func presentSummary(_ summary: NotificationSummary, _ presentations: [Presentation]) async {
        printLine(summary.text)
    }
}

/// One JSON line per notification on standard output (`{"event":"notification",…}`), and one per scheduled summary
/// (`{"event":"summary",…}`, holding its notifications), for scripts (`herald device --json`).
package struct JSONLinesPresenter: Presenter {
    package init() {}

    package func present(_ presentation: Presentation) async {
        guard !presentation.card.style.inSummary else { return }  // the summary's line carries it
        printLine(presentation.card.jsonLine)
    }

    package func presentSummary(_ summary: NotificationSummary, _ presentations: [Presentation]) async {
        printLine(summary.jsonLine)
    }
}

/// Writes `text` and a newline to standard output at once, whatever buffering standard output has.
private func printLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
