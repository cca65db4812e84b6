import Foundation
import Synchronization
package import UserNotifications

/// The notifications the daemon's notification center page lists, newest first, and what people do on the page.
///
/// A ``Presenter`` like the desktop: the daemon gives it every presentation and withdrawal (and, at start, what is
/// already delivered), and each open page follows the list through ``follow()``. What a person does on a page comes
/// back through ``report(_:)`` as a ``PresenterEvent``, which the daemon answers as it answers the desktop's.
package final class NotificationCenterPresenter: Presenter {
    /// A change of the list, for the pages following it.
    package enum Change: Sendable {
        case presented(Presentation)
        case withdrawn([Presentation.ID])
        /// A Live Activity started or changed (it keeps its place in the section).
        case activity(ActivityPresentation)
        case activityGone(id: String)
        /// The Focus went on, changed or went off (nil).
        case focus(Focus.Status?)
        /// The scheduled summary arrived (its notifications were presented just before).
        case summary(NotificationSummary, [Presentation])
    }

    private struct State {
        var presentations: [Presentation] = []
        /// The Live Activities section, oldest first.
        var activities: [ActivityPresentation] = []
        var focus: Focus.Status?
        var summary: (NotificationSummary, [Presentation])?
        var followers: [UUID: AsyncStream<Change>.Continuation] = [:]
    }

    private let state = Mutex(State())
    private let events: AsyncStream<PresenterEvent>
    private let eventInput: AsyncStream<PresenterEvent>.Continuation

    package init() {
        (events, eventInput) = AsyncStream.makeStream(of: PresenterEvent.self)
    }

    /// What is listed now, newest first.
    package var presentations: [Presentation] { state.withLock { $0.presentations } }

    /// The listed presentation with this id.
    package func presentation(_ id: Presentation.ID) -> Presentation? {
        state.withLock { $0.presentations.first { $0.id == id } }
    }

    /// The Live Activities shown now, oldest first.
    package var activities: [ActivityPresentation] { state.withLock { $0.activities } }

    /// What a page is sent when it connects — the list, the Live Activities, the Focus, the last summary — and the
    /// changes from then on, until the stream is dropped.
    package struct Snapshot: Sendable {
        package var list: [Presentation]
        package var activities: [ActivityPresentation]
        package var focus: Focus.Status?
        package var summary: (NotificationSummary, [Presentation])?
    }

    package func follow() -> (snapshot: Snapshot, changes: AsyncStream<Change>) {
        let (changes, continuation) = AsyncStream.makeStream(of: Change.self)
        let key = UUID()
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.followers.removeValue(forKey: key) } }
        let snapshot = state.withLock { state in
            state.followers[key] = continuation
            return Snapshot(list: state.presentations, activities: state.activities, focus: state.focus, summary: state.summary)
        }
        return (snapshot, changes)
    }

    package func presentSummary(_ summary: NotificationSummary, _ presentations: [Presentation]) async {
        let followers = state.withLock { state in
            state.summary = (summary, presentations)
            return Array(state.followers.values)
        }
        for follower in followers { follower.yield(.summary(summary, presentations)) }
    }

    package func focusChanged(_ status: Focus.Status?) async {
        let followers = state.withLock { state in
            state.focus = status
            return Array(state.followers.values)
        }
        for follower in followers { follower.yield(.focus(status)) }
    }

    package func showActivity(_ activity: ActivityPresentation) async {
        let followers = state.withLock { state in
            if let index = state.activities.firstIndex(where: { $0.id == activity.id }) {
                state.activities[index] = activity
            } else {
                state.activities.append(activity)
            }
            return Array(state.followers.values)
        }
        for follower in followers { follower.yield(.activity(activity)) }
    }

    package func removeActivity(id: String) async {
        let followers = state.withLock { state in
            state.activities.removeAll { $0.id == id }
            return Array(state.followers.values)
        }
        for follower in followers { follower.yield(.activityGone(id: id)) }
    }

    /// Something a person did on a page.
    package func report(_ event: PresenterEvent) {
        eventInput.yield(event)
    }

    package func present(_ presentation: Presentation) async {
        let followers = state.withLock { state in
            state.presentations.removeAll { $0.id == presentation.id }
            state.presentations.insert(presentation, at: 0)
            return Array(state.followers.values)
        }
        for follower in followers { follower.yield(.presented(presentation)) }
    }

    package func withdraw(_ ids: [Presentation.ID]) async {
        let gone = Set(ids)
        let followers = state.withLock { state in
            state.presentations.removeAll { gone.contains($0.id) }
            return Array(state.followers.values)
        }
        for follower in followers { follower.yield(.withdrawn(ids)) }
    }

    package func run(reporting report: @escaping @Sendable (PresenterEvent) async -> Void) async throws {
        for await event in events { await report(event) }
    }
}
