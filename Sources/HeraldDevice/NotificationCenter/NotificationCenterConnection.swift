import Foundation
import HeraldWire
package import UserNotifications
import UserNotificationsUI

/// What a page's connection needs of the daemon.
package struct NotificationCenterServices: Sendable {
    package var presenter: NotificationCenterPresenter
    package var files: ServedFiles
    /// A listed notification with its category's actions and its app's content extension (``DeviceDaemon/expand``).
    package var expand: @Sendable (Presentation.ID) async throws(UNError) -> ExpandedNotification
    /// The environment a content extension of this app runs with.
    package var environment: @Sendable (_ bundleID: String) -> [String: String]
    /// How long an extension may take to draw its first view, process start included.
    package var startBudget: Duration = .seconds(2)
    /// How long it may take to answer an action.
    package var answerBudget: Duration = .seconds(10)
    /// Problems worth the daemon's log (an extension that failed).
    package var log: @Sendable (String) -> Void = { _ in }

    package init(
        presenter: NotificationCenterPresenter, files: ServedFiles,
        expand: @escaping @Sendable (Presentation.ID) async throws(UNError) -> ExpandedNotification,
        environment: @escaping @Sendable (String) -> [String: String]
    ) {
        self.presenter = presenter
        self.files = files
        self.expand = expand
        self.environment = environment
    }
}

/// One open notification center page: it is sent the list and its changes, and may expand one notification at a
/// time, whose content extension then runs here, in the daemon, until the page collapses it, picks another, or
/// goes. Everything that happens (the page's messages, the list's changes, the extension's output and end, an
/// answer overdue) is handled in order, one at a time, by ``run(receiving:sending:)``.
final class NotificationCenterConnection: Sendable {
    enum Input: Sendable {
        case page(JSONValue)
        case list(NotificationCenterPresenter.Change)
        case output(generation: Int, ContentExtensionWire.Output)
        case ended(generation: Int)
        case overdue(generation: Int, action: Int)
    }

    /// The notification expanded now.
    private struct Expanded {
        var id: Presentation.ID
        var details: ExpandedNotification
        var hosted: HostedContentExtension?
        /// Tells this extension's output from an earlier one's.
        var generation: Int
        /// The action the extension is deciding on, and its number (for its deadline).
        var pendingAction: (identifier: String, text: String?)?
        var actionNumber = 0
    }

    private let services: NotificationCenterServices
    private let inputs: AsyncStream<Input>
    private let input: AsyncStream<Input>.Continuation

    init(services: NotificationCenterServices) {
        self.services = services
        (inputs, input) = AsyncStream.makeStream(of: Input.self)
    }

    /// Serves the page until it goes: `receiving` yields its messages, `send` writes one to it.
    func run<Messages: AsyncSequence & Sendable>(
        receiving messages: Messages, sending send: @escaping @Sendable (JSONValue) async throws -> Void
    ) async where Messages.Element == JSONValue {
        let (snapshot, changes) = services.presenter.follow()
        let input = self.input
        await withDiscardingTaskGroup { group in
            group.addTask {
                do {
                    for try await message in messages { input.yield(.page(message)) }
                } catch {}
                input.finish()
            }
            group.addTask {
                for await change in changes { input.yield(.list(change)) }
            }
            var expanded: Expanded?
            var generation = 0
            do {
                try await send(NotificationCenterJSON.list(snapshot.list, files: services.files))
                try await send(NotificationCenterJSON.activities(snapshot.activities, files: services.files))
                try await send(NotificationCenterJSON.change(.focus(snapshot.focus), files: services.files))
                if let (summary, presentations) = snapshot.summary {
                    try await send(NotificationCenterJSON.change(.summary(summary, presentations), files: services.files))
                }
                for await next in inputs {
                    try await handle(next, expanded: &expanded, generation: &generation, send: send)
                }
            } catch {}
            input.finish()
            if let hosted = expanded?.hosted { await hosted.close() }
            group.cancelAll()
        }
    }

    private func handle(
        _ next: Input, expanded: inout Expanded?, generation: inout Int, send: @escaping @Sendable (JSONValue) async throws -> Void
    ) async throws {
        switch next {
        case .page(let message):
            try await handlePage(message, expanded: &expanded, generation: &generation, send: send)
        case .list(let change):
            try await send(NotificationCenterJSON.change(change, files: services.files))
            guard let current = expanded else { return }
            switch change {
            case .withdrawn(let ids) where ids.contains(current.id):
                try await collapse(&expanded, telling: send, reason: nil)
            case .presented(let presentation) where presentation.id == current.id:
                // A notification with the same identifier replaced the shown one: the extension hears of it again.
                guard let replacement = try? await services.expand(current.id) else { return }
                expanded?.details = replacement
                current.hosted?.send(ContentExtensionWire.Input(notification: replacement.notification))
            default:
                break
            }
        case .output(let number, let output):
            guard let current = expanded, current.generation == number else { return }
            try await handleOutput(output, expanded: &expanded, send: send)
        case .ended(let number):
            guard let current = expanded, current.generation == number, let hosted = current.hosted else { return }
            let how = await hosted.termination(within: .milliseconds(500)).map { "\($0)" } ?? "closed its output"
            try await fallBack(&expanded, reason: "the content extension \(how)", send: send)
        case .overdue(let number, let action):
            guard let current = expanded, current.generation == number, current.pendingAction != nil, current.actionNumber == action else {
                return
            }
            try await fallBack(&expanded, reason: "the content extension did not answer within \(services.answerBudget)", send: send)
        }
    }

    // MARK: The page's messages

    private func handlePage(
        _ message: JSONValue, expanded: inout Expanded?, generation: inout Int, send: @escaping @Sendable (JSONValue) async throws -> Void
    ) async throws {
        let text = { (key: String) in message[key]?.stringValue }
        switch text("type") {
        case "expand":
            guard let app = text("app"), let identifier = text("id") else { return }
            if let hosted = expanded?.hosted { Task { await hosted.close() } }
            generation += 1
            expanded = try await expand(Presentation.ID(bundleID: app, identifier: identifier), generation: generation, send: send)
        case "collapse":
            try await collapse(&expanded, telling: nil, reason: nil)
        case "respond":
            // A card's own answer (open, dismiss, an action of a notification without an extension).
            guard let app = text("app"), let identifier = text("id"), let action = text("action") else { return }
            report(Presentation.ID(bundleID: app, identifier: identifier), action: action, text: text("text"))
        case "action":
            guard let current = expanded, let action = text("action") else { return }
            guard let hosted = current.hosted else {
                // The default expanded view: the action goes to the app at once.
                try await collapse(&expanded, telling: nil, reason: nil)
                return report(current.id, action: action, text: text("text"))
            }
            expanded?.pendingAction = (action, text("text"))
            expanded?.actionNumber += 1
            let (number, actionNumber, budget, input) = (current.generation, current.actionNumber + 1, services.answerBudget, self.input)
            hosted.send(ContentExtensionWire.Input(response: .init(actionIdentifier: action, userText: text("text"))))
            Task {
                try? await Task.sleep(for: budget)
                input.yield(.overdue(generation: number, action: actionNumber))
            }
        case "click":
            guard let current = expanded, current.details.userInteractionEnabled, let button = message["button"]?.integerValue else { return }
            current.hosted?.send(ContentExtensionWire.Input(click: Int(button)))
        case "media":
            guard let command = text("command"), ["play", "pause"].contains(command) else { return }
            expanded?.hosted?.send(ContentExtensionWire.Input(media: command))
        default:
            break
        }
    }

    /// Expands a notification: its extension started and its first view sent, or the default view (saying why).
    private func expand(_ id: Presentation.ID, generation: Int, send: @escaping @Sendable (JSONValue) async throws -> Void) async throws -> Expanded?
    {
        let details: ExpandedNotification
        do {
            details = try await services.expand(id)
        } catch {
            try await send(.object(["type": .string("error"), "message": .string(error.message)]))
            return nil
        }
        var expanded = Expanded(id: id, details: details, generation: generation)
        guard let executable = details.contentExtension else {
            try await send(expandedMessage(expanded, opening: []))
            return expanded
        }
        let hosted: HostedContentExtension
        do {
            hosted = try await HostedContentExtension.start(
                executable: URL(fileURLWithPath: executable), notification: details.notification,
                environment: services.environment(id.bundleID), directory: FileManager.default.temporaryDirectory,
                startBudget: services.startBudget)
        } catch {
            services.log("the content extension of \(id) could not draw: \(error.reason)\(error.log.isEmpty ? "" : "; it printed: \(error.log)")")
            try await send(expandedMessage(expanded, opening: [], failure: error.reason))
            return expanded
        }
        expanded.hosted = hosted
        let input = self.input
        Task {
            for await output in hosted.outputs { input.yield(.output(generation: generation, output)) }
            input.yield(.ended(generation: generation))
        }
        try await send(expandedMessage(expanded, opening: hosted.opening))
        return expanded
    }

    /// `{"type": "expanded", …}`: what the page needs to draw the expanded notification.
    private func expandedMessage(_ expanded: Expanded, opening: [ContentExtensionWire.Output], failure: String? = nil) -> JSONValue {
        let details = expanded.details
        let actions = opening.compactMap(\.actions).last ?? details.actions
        var fields: [String: JSONValue] = [
            "type": .string("expanded"),
            "app": .string(expanded.id.bundleID),
            "id": .string(expanded.id.identifier),
            "hasExtension": .bool(details.contentExtension != nil),
            "defaultContentHidden": .bool(expanded.hosted != nil && details.defaultContentHidden),
            "overridesDefaultTitle": .bool(details.overridesDefaultTitle),
            "interactive": .bool(details.userInteractionEnabled),
            "sizeRatio": details.initialContentSizeRatio.map(JSONValue.number) ?? .null,
            "height": Self.height(opening.last),
            "mediaButton": .string(Self.mediaButton(opening.compactMap(\.mediaButton).first)),
            "actions": .array(actions.map { NotificationCenterJSON.action(Presentation.Action($0)) }),
            "view": opening.last?.view.map { NotificationCenterJSON.view($0, files: services.files) } ?? .null,
            "title": opening.last?.title.map(JSONValue.string) ?? .null,
        ]
        if let failure { fields["failure"] = .string(failure) }
        return .object(fields)
    }

    /// The view's height in pixels from the extension's `preferredContentSize` (``ContentViewHeight``), or null.
    private static func height(_ output: ContentExtensionWire.Output?) -> JSONValue {
        ContentViewHeight.pagePixels(for: output?.preferredContentSize).map { .integer(Int64($0)) } ?? .null
    }

    private static func mediaButton(_ raw: UInt?) -> String {
        switch raw.flatMap(UNNotificationContentExtensionMediaPlayPauseButtonType.init(rawValue:)) {
        case .default?: "default"
        case .overlay?: "overlay"
        case .none?, nil: "none"
        }
    }

    // MARK: The extension's output

    private func handleOutput(
        _ output: ContentExtensionWire.Output, expanded: inout Expanded?, send: @escaping @Sendable (JSONValue) async throws -> Void
    ) async throws {
        guard let current = expanded else { return }
        if let actions = output.actions {
            try await send(
                .object(["type": .string("actions"), "actions": .array(actions.map { NotificationCenterJSON.action(Presentation.Action($0)) })]))
        }
        switch output.context {
        case "mediaPlayingStarted": try await send(.object(["type": .string("media"), "playing": .bool(true)]))
        case "mediaPlayingPaused": try await send(.object(["type": .string("media"), "playing": .bool(false)]))
        case "performNotificationDefaultAction":
            try await collapse(&expanded, telling: send, reason: "opened")
            return report(current.id, action: "open", text: nil)
        case "dismissNotificationContentExtension":
            return try await collapse(&expanded, telling: send, reason: "dismissed")
        default: break
        }
        if let completion = output.completion.flatMap(UNNotificationContentExtensionResponseOption.init(rawValue:)),
            let action = current.pendingAction
        {
            expanded?.pendingAction = nil
            switch completion {
            case .doNotDismiss:
                break
            case .dismiss:
                return try await collapse(&expanded, telling: send, reason: "dismissed")
            case .dismissAndForwardAction:
                try await collapse(&expanded, telling: send, reason: "forwarded")
                return report(current.id, action: action.identifier, text: action.text)
            }
        }
        if let view = output.view {
            try await send(
                .object([
                    "type": .string("view"), "view": NotificationCenterJSON.view(view, files: services.files),
                    "title": output.title.map(JSONValue.string) ?? .null, "height": Self.height(output),
                ]))
        }
    }

    // MARK: Ending an expansion

    /// Closes the extension; the page is told (`{"type": "collapsed", "reason": …}`) unless it asked.
    private func collapse(
        _ expanded: inout Expanded?, telling send: (@Sendable (JSONValue) async throws -> Void)?, reason: String?
    ) async throws {
        guard let current = expanded else { return }
        expanded = nil
        if let hosted = current.hosted { Task { await hosted.close() } }
        try await send?(
            .object([
                "type": .string("collapsed"), "app": .string(current.id.bundleID), "id": .string(current.id.identifier),
                "reason": reason.map(JSONValue.string) ?? .null,
            ]))
    }

    /// The extension failed while shown: it is closed and the page draws the default view, saying why.
    private func fallBack(_ expanded: inout Expanded?, reason: String, send: @escaping @Sendable (JSONValue) async throws -> Void) async throws {
        guard var current = expanded else { return }
        let log = current.hosted?.log ?? ""
        if let hosted = current.hosted { Task { await hosted.close(grace: .zero) } }
        services.log("the content extension of \(current.id) stopped: \(reason)\(log.isEmpty ? "" : "; it printed: \(log)")")
        current.hosted = nil
        current.pendingAction = nil
        expanded = current
        try await send(expandedMessage(current, opening: [], failure: reason))
    }

    /// Hands what the person did to the daemon, as any presenter does.
    private func report(_ id: Presentation.ID, action: String, text: String?) {
        let event: PresenterEvent =
            switch action {
            case "open", UNNotificationDefaultActionIdentifier: .opened(id)
            case "dismiss", UNNotificationDismissActionIdentifier: .dismissed(id)
            default: text.map { .reply(id, action: action, text: $0) } ?? .action(id, identifier: action)
            }
        services.presenter.report(event)
    }
}
