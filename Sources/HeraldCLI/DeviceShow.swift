import ArgumentParser
import Foundation
import HeraldDevice
import UserNotifications
import UserNotificationsUI

/// `herald device show`: a delivered notification expanded on the terminal, through its app's content extension when
/// it has one, as iOS shows it when the person long-presses it.
struct DeviceShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Expand a delivered notification: its content extension's view as text, and its actions.",
        discussion: """
            With --action, the action is picked in the expanded view: the content extension gets it first and answers \
            whether the view stays (it is drawn again), closes, or closes and the app's delegate gets the action (as \
            `herald device respond` gives it). Without a content extension the action goes to the app at once.
            """
    )

    @Argument(help: "The notification's identifier (a remote notification's collapse id or apns-id).")
    var identifier: String

    @Option(help: "An action identifier of the notification's category to pick in the expanded view.")
    var action: String?

    @Option(help: "The reply typed into a text-input action.")
    var text: String?

    @Option(help: "The app's bundle id, when several apps have a notification with this identifier.")
    var app: String?

    @Option(name: .customLong("data-dir"), help: "The device daemon's data dir (default: $HERALD_DATA_DIR, else $XDG_DATA_HOME/herald).")
    var dataDirectory: String = AppIdentity.dataDirectory().path

    func run() async throws {
        let daemon = try RunningDaemon(dataDirectory: dataDirectory)
        let expanded = try await daemon.expand(bundleID: app, identifier: identifier)
        let content = expanded.notification.request.content
        let headline = content.title + (content.subtitle.isEmpty ? "" : " — \(content.subtitle)")
        guard let executable = expanded.contentExtension else {
            return try await showDefault(expanded, headline: headline, daemon: daemon)
        }
        let hosted: HostedContentExtension
        do {
            hosted = try await HostedContentExtension.start(
                executable: URL(fileURLWithPath: executable), notification: expanded.notification,
                environment: HostedContentExtension.environment(bundleID: expanded.bundleID, dataDirectory: URL(fileURLWithPath: dataDirectory)),
                directory: FileManager.default.temporaryDirectory)
        } catch {
            // The default view, as iOS shows when an extension fails, and why.
            return try await showDefault(expanded, headline: headline, daemon: daemon, failure: error.reason)
        }
        var actions = expanded.actions.map(\.identifier)
        for output in hosted.opening { if let set = output.actions { actions = set.map(\.identifier) } }
        // The Info.plist's keys: the controller's title in place of the app's name; the default title and body
        // below the extension's view unless hidden.
        let title = expanded.overridesDefaultTitle ? (hosted.opening.last?.title ?? expanded.bundleID) : expanded.bundleID
        printNow(title + (expanded.defaultContentHidden ? "" : " · \(headline)"))
        hosted.opening.last.map(printView)
        if !expanded.defaultContentHidden { printNow(content.body) }
        printActions(actions)
        guard let action else { return await hosted.close() }

        hosted.send(ContentExtensionWire.Input(response: .init(actionIdentifier: action, userText: text)))
        // The extension's answer and the view after it; one that does not answer within the budget is closed.
        let (completion, redrawn) = await withTaskGroup(of: (UInt?, ContentExtensionWire.Output?).self) { group in
            group.addTask {
                var completion: UInt?
                for await output in hosted.outputs {
                    if output.view != nil, completion != nil { return (completion, output) }
                    if let answer = output.completion { completion = answer }
                }
                return (completion, nil)
            }
            group.addTask {
                try? await Task.sleep(for: Self.answerBudget)
                return (nil, nil)
            }
            let first = await group.next() ?? (nil, nil)
            group.cancelAll()
            return first
        }
        await hosted.close()
        switch completion.flatMap(UNNotificationContentExtensionResponseOption.init(rawValue:)) {
        case .doNotDismiss?:
            printNow("\(action): the extension keeps the view up:")
            redrawn.map(printView)
        case .dismiss?:
            printNow("\(action): the extension closed the view")
        case .dismissAndForwardAction?:
            printNow("\(action): the extension closed the view and hands the action to the app")
            try await forward(action, to: daemon, app: expanded.bundleID)
        case nil:
            printNow("\(action): the extension did not answer within \(Self.answerBudget); it was closed")
        }
    }

    /// The notification without an extension: its title and body, its actions; an action goes to the app at once.
    private func showDefault(_ expanded: ExpandedNotification, headline: String, daemon: RunningDaemon, failure: String? = nil) async throws {
        printNow("\(expanded.bundleID) · \(headline)")
        printNow(expanded.notification.request.content.body)
        if let failure { printNow("(the content extension could not draw: \(failure))") }
        printActions(expanded.actions.map(\.identifier))
        if let action { try await forward(action, to: daemon, app: expanded.bundleID) }
    }

    /// How long the extension has to answer an action.
    static let answerBudget = Duration.seconds(10)

    /// The view as text, a line per label, image, progress and button; as many rows as its `preferredContentSize`
    /// asks for, when it sets one (``ContentViewHeight``).
    private func printView(_ output: ContentExtensionWire.Output) {
        guard let view = output.view else { return }
        var lines = view.text
        if let rows = ContentViewHeight.terminalRows(for: output.preferredContentSize) { lines = ContentViewHeight.fit(lines, rows: rows) }
        for line in lines { printNow("  " + line) }
    }

    private func printActions(_ actions: [String]) {
        if !actions.isEmpty { printNow("actions: " + actions.joined(separator: ", ")) }
    }

    /// Gives the action to the app's delegate, as `herald device respond` does.
    private func forward(_ action: String, to daemon: RunningDaemon, app: String) async throws {
        let (bundleID, actionIdentifier, delivery) = try await daemon.respond(
            RespondRequest(bundleID: app, identifier: identifier, action: action, text: text))
        printNow("\(bundleID) \(identifier): \(actionIdentifier) — \(delivery)")
    }
}
