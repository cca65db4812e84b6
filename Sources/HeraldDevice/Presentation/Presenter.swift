package import UserNotifications

/// A surface that shows notifications to the person — the terminal, JSON lines for scripts, the desktop's
/// notification server, a browser page — and reports what the person does with them.
///
/// The daemon's ``PresenterGroup`` gives every presenter each change in the order the engine made them, and turns
/// their events into responses as `herald device respond` does: the app's delegate hears of them, and the
/// notification is withdrawn from every surface. A presenter shows what it can of a ``Presentation`` (no image on a
/// terminal) and leaves the rest out.
///
/// ```swift
/// struct LogPresenter: Presenter {
///     func present(_ presentation: Presentation) async { print(presentation.card.title ?? "") }
/// }
/// ```
package protocol Presenter: Sendable {
    /// Shows `presentation`, replacing the one shown with the same ``Presentation/ID`` if there is one.
    func present(_ presentation: Presentation) async
    /// Takes these off the surface: the app removed them, or the person answered them (here or elsewhere).
    func withdraw(_ ids: [Presentation.ID]) async
    /// An app's badge number changed (0: no badge).
    func setBadge(_ count: Int, of app: Presentation.App) async
    /// Runs until cancelled, reporting what the person does. A surface without input returns at once.
    func run(reporting events: @escaping @Sendable (PresenterEvent) async -> Void) async throws
    /// Shows a Live Activity, in place of its last drawing if it has one.
    func showActivity(_ activity: ActivityPresentation) async
    /// Takes a Live Activity off the surface (it was dismissed).
    func removeActivity(id: String) async
    /// The Focus went on (or changed) or off (nil).
    func focusChanged(_ status: Focus.Status?) async
    /// The scheduled summary arrived; `presentations` are its notifications, most relevant first, each already given to
    /// ``present(_:)`` (least relevant first, marked ``NotificationCard/Style/inSummary``).
    func presentSummary(_ summary: NotificationSummary, _ presentations: [Presentation]) async
}

extension Presenter {
    package func showActivity(_ activity: ActivityPresentation) async {}
    package func removeActivity(id: String) async {}
    package func focusChanged(_ status: Focus.Status?) async {}
    package func presentSummary(_ summary: NotificationSummary, _ presentations: [Presentation]) async {}
    package func withdraw(_ ids: [Presentation.ID]) async {}
    package func setBadge(_ count: Int, of app: Presentation.App) async {}
    package func run(reporting events: @escaping @Sendable (PresenterEvent) async -> Void) async throws {}
}

/// What the person did with a presented notification.
package enum PresenterEvent: Sendable, Hashable {
    /// Opened it: `UNNotificationDefaultActionIdentifier`.
    case opened(Presentation.ID)
    /// Chose one of its category's actions.
    case action(Presentation.ID, identifier: String)
    /// Sent text from a text-input action.
    case reply(Presentation.ID, action: String, text: String)
    /// Dismissed it: `UNNotificationDismissActionIdentifier`, which the app hears of only for categories with
    /// `.customDismissAction`.
    case dismissed(Presentation.ID)

    /// The same answer as `herald device respond` gives.
    package var response: RespondRequest {
        switch self {
        case .opened(let id): RespondRequest(bundleID: id.bundleID, identifier: id.identifier, action: "open", text: nil)
        case .action(let id, let action): RespondRequest(bundleID: id.bundleID, identifier: id.identifier, action: action, text: nil)
        case .reply(let id, let action, let text): RespondRequest(bundleID: id.bundleID, identifier: id.identifier, action: action, text: text)
        case .dismissed(let id): RespondRequest(bundleID: id.bundleID, identifier: id.identifier, action: "dismiss", text: nil)
        }
    }
}
