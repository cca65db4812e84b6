import Foundation
import UserNotifications

/// A card per notification on standard output, for people watching `herald device`.
package struct TerminalCardPresenter: Presenter {
    package init() {}

    package func present(_ presentation: Presentation) async {
        printLine(presentation.card.text)
    }
}

/// One JSON line per notification on standard output (`{"event":"notification",…}`), for scripts
/// (`herald device --json`).
package struct JSONLinesPresenter: Presenter {
    package init() {}

    package func present(_ presentation: Presentation) async {
        printLine(presentation.card.jsonLine)
    }
}

/// Writes `text` and a newline to standard output at once, whatever buffering standard output has.
private func printLine(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
