import Foundation
package import UserNotifications

/// The device daemon's presenters, as one: what the engine presents, withdraws and badges goes to every presenter
/// (a terminal log beside the desktop, say), in the order the engine did it, without the engine ever waiting; what
/// the person does on any of them comes back through ``run(responding:)``.
///
/// The engine's calls are queued; ``run(responding:)`` works through the queue, giving each change to all
/// presenters at once and taking the next only when all have it, so a presenter never sees a withdrawal before
/// the presentation it withdraws.
package final class PresenterGroup: NotificationPresenter {
    /// What the engine asked for, in order.
    private enum Change: Sendable {
        case present(NotificationCard)
        case withdraw(bundleID: String, identifiers: [String])
        case badge(Int, bundleID: String)
        case activity(ActivityPresentation)
        case activityGone(id: String)
        case focus(Focus.Status?)
        case summary(NotificationSummary)
    }

    private let presenters: [any Presenter]
    private let describe: @Sendable (NotificationCard) async -> Presentation
    private let app: @Sendable (String) -> Presentation.App
    private let changes: AsyncStream<Change>
    private let queue: AsyncStream<Change>.Continuation

    /// - Parameters:
    ///   - presenters: Where notifications are shown; none shows nothing.
    ///   - describe: Makes a card into a presentation (the app's name and icon, its category's actions).
    ///   - app: The app of a bundle id, for badges.
    package init(
        presenters: [any Presenter],
        describe: @escaping @Sendable (NotificationCard) async -> Presentation,
        app: @escaping @Sendable (String) -> Presentation.App
    ) {
        self.presenters = presenters
        self.describe = describe
        self.app = app
        (changes, queue) = AsyncStream.makeStream(of: Change.self)
    }

    /// The presentation of `card` the presenters are given.
    func presentation(of card: NotificationCard) async -> Presentation {
        await describe(card)
    }

    package func present(_ card: NotificationCard) {
        queue.yield(.present(card))
    }

    package func withdraw(bundleID: String, identifiers: [String]) {
        queue.yield(.withdraw(bundleID: bundleID, identifiers: identifiers))
    }

    package func setBadge(_ count: Int, of bundleID: String) {
        queue.yield(.badge(count, bundleID: bundleID))
    }

    /// Shows a Live Activity on every presenter, after the changes queued before it.
    package func showActivity(_ activity: ActivityPresentation) {
        queue.yield(.activity(activity))
    }

    package func removeActivity(id: String) {
        queue.yield(.activityGone(id: id))
    }

    package func presentSummary(_ summary: NotificationSummary) {
        queue.yield(.summary(summary))
    }

    /// Tells every presenter the Focus went on, changed or went off (nil).
    package func focusChanged(_ status: Focus.Status?) {
        queue.yield(.focus(status))
    }

    /// Gives the queued changes to the presenters and runs their event loops, until cancelled. `respond` gets
    /// what the person did, in the order it happened on each presenter.
    package func run(responding respond: @escaping @Sendable (PresenterEvent) async -> Void) async {
        await withDiscardingTaskGroup { group in
            for presenter in presenters {
                group.addTask { try? await presenter.run(reporting: respond) }
            }
            group.addTask { [self] in
                for await change in changes { await apply(change) }
            }
        }
    }

    private func apply(_ change: Change) async {
        switch change {
        case .present(let card):
            let presentation = await describe(card)
            await everyPresenter { await $0.present(presentation) }
        case .withdraw(let bundleID, let identifiers):
            let ids = identifiers.map { Presentation.ID(bundleID: bundleID, identifier: $0) }
            await everyPresenter { await $0.withdraw(ids) }
        case .badge(let count, let bundleID):
            let app = app(bundleID)
            await everyPresenter { await $0.setBadge(count, of: app) }
        case .activity(let activity):
            await everyPresenter { await $0.showActivity(activity) }
        case .activityGone(let id):
            await everyPresenter { await $0.removeActivity(id: id) }
        case .focus(let status):
            await everyPresenter { await $0.focusChanged(status) }
        case .summary(let summary):
            var presentations: [Presentation] = []
            for card in summary.cards { presentations.append(await describe(card)) }
            // Least relevant first, so that in a list the most relevant ends up on top.
            for presentation in presentations.reversed() { await everyPresenter { await $0.present(presentation) } }
            let described = presentations
            await everyPresenter { await $0.presentSummary(summary, described) }
        }
    }

    private func everyPresenter(_ body: @escaping @Sendable (any Presenter) async -> Void) async {
        await withDiscardingTaskGroup { group in
            for presenter in presenters { group.addTask { await body(presenter) } }
        }
    }
}
