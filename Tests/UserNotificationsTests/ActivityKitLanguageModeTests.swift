import Foundation
import Testing
import UserNotifications
import UserNotificationsUI

@testable import ActivityKit

/// ActivityKit as Swift 6 app code uses it (this target is compiled in the Swift 6 language mode with strict
/// concurrency; the test app uses it in the Swift 5 mode), and what it answers on a machine with no device daemon.
@Suite struct ActivityKitLanguageModeTests {
    struct ScoreAttributes: ActivityAttributes {
        struct ContentState: Codable, Hashable, Sendable {
            var home: Int
            var away: Int
        }

        var match: String
    }

    /// What a main-actor view model writes: each of ActivityKit's sequences iterated on the main actor.
    @MainActor final class ScoreModel {
        var lines: [String] = []

        func follow(_ activity: Activity<ScoreAttributes>) async {
            for await content in activity.contentUpdates { lines.append("\(content.state.home)-\(content.state.away)") }
            for await state in activity.activityStateUpdates where state == .ended { lines.append("ended") }
            for await token in activity.pushTokenUpdates { lines.append(token.map { String(format: "%02x", $0) }.joined()) }
            for await started in Activity<ScoreAttributes>.activityUpdates { lines.append(started.id) }
            for await token in Activity<ScoreAttributes>.pushToStartTokenUpdates { lines.append("\(token.count)") }
        }

        func finish(_ activity: Activity<ScoreAttributes>) async {
            let final = ActivityContent(state: ScoreAttributes.ContentState(home: 2, away: 1), staleDate: nil, relevanceScore: 1)
            await activity.update(final, alertConfiguration: AlertConfiguration(title: "Goal", body: "2-1", sound: .named("goal.caf")))
            await activity.end(final, dismissalPolicy: .after(Date().addingTimeInterval(60)))
        }
    }

    /// A widget extension's widget as Swift 6 code writes it.
    struct ScoreWidget: Widget {
        var body: some WidgetConfiguration {
            ActivityConfiguration(for: ScoreAttributes.self) { context in
                let score = UILabel()
                score.text = "\(context.attributes.match) \(context.state.home)-\(context.state.away)" + (context.isStale ? " (stale)" : "")
                let stack = UIStackView(arrangedSubviews: [score])
                stack.axis = .vertical
                return stack
            }
        }
    }

    static func record(type: String = "ScoreAttributes", state: String = #"{"home":2,"away":1}"#, isStale: Bool = false) -> ActivityRecord {
        ActivityRecord(
            id: "A1", attributesType: type, attributes: Data(#"{"match":"FCB–BVB"}"#.utf8), state: Data(state.utf8), staleDate: nil,
            relevanceScore: nil, phase: "active", isStale: isStale, pushToken: nil, createdAt: Date())
    }

    /// What the widget extension process answers for each activity the daemon sends it.
    @MainActor @Test func aWidgetDrawsItsTypeAndDeclinesOthers() throws {
        let drawn = WidgetDrawing.output(for: Self.record(isStale: true), configuration: ScoreWidget().body)
        #expect(drawn.id == "A1" && drawn.declined == nil)
        #expect(try #require(drawn.view).text == ["FCB–BVB 2-1 (stale)"])

        let other = WidgetDrawing.output(for: Self.record(type: "ParcelAttributes"), configuration: ScoreWidget().body)
        #expect(other.view == nil && other.declined == "this widget draws ScoreAttributes activities, not ParcelAttributes")
        let broken = WidgetDrawing.output(for: Self.record(state: #"{"home":"two"}"#), configuration: ScoreWidget().body)
        #expect(broken.view == nil && broken.declined?.hasPrefix("the activity does not decode as ScoreAttributes") == true)
    }

    @Test func withoutADeviceDaemonActivitiesAreUnsupported() throws {
        // The data directory this process's apps would use (HERALD_DATA_DIR, else the default) has no daemon.
        try #require(!DaemonSocket.isListening(at: DaemonSocket.path(dataDirectory: AppIdentity.dataDirectory())))
        #expect(ActivityAuthorizationInfo().areActivitiesEnabled == false)
        #expect(Activity<ScoreAttributes>.activities.isEmpty && Activity<ScoreAttributes>.pushToStartToken == nil)
        #expect(throws: ActivityAuthorizationError.unsupported) {
            try Activity.request(
                attributes: ScoreAttributes(match: "A v B"),
                content: ActivityContent(state: ScoreAttributes.ContentState(home: 0, away: 0), staleDate: nil), pushType: .token)
        }
        #expect(ActivityAuthorizationError.unentitled.localizedDescription.contains("NSSupportsLiveActivities"))
    }
}
