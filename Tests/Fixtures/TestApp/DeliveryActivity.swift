// The test app's Live Activity, written as iOS app code is: `activity-request token|channel:ID|none` starts one and
// prints it, its push token when it comes, and every content and state change; `activity-update STATUS` and
// `activity-end STATUS` change the newest one; `activity-list` prints the app's activities and push-to-start token;
// `activity-watch` prints activities started from now on (by a push, say) and push-to-start tokens.
import ActivityKit
import Foundation

struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var progress: Double
        var status: String
    }

    var orderID: String
}

func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

func describe(_ activity: Activity<DeliveryAttributes>) -> [String: Any] {
    [
        "id": activity.id, "orderID": activity.attributes.orderID, "status": activity.content.state.status,
        "progress": activity.content.state.progress, "activityState": "\(activity.activityState)",
    ]
}

/// Prints what happens to `activity` from now on, in tasks of their own.
func follow(_ activity: Activity<DeliveryAttributes>) {
    Task {
        for await token in activity.pushTokenUpdates { emit(["event": "pushToken", "id": activity.id, "token": hex(token)]) }
    }
    Task {
        for await content in activity.contentUpdates {
            emit(["event": "content", "id": activity.id, "status": content.state.status, "progress": content.state.progress])
        }
    }
    Task {
        for await state in activity.activityStateUpdates { emit(["event": "activityState", "id": activity.id, "state": "\(state)"]) }
    }
}

func runActivityCommand(_ command: String, _ arguments: inout [String]) async {
    switch command {
    case "activity-request":
        let kind = arguments.removeFirst()
        let pushType: PushType? = kind == "token" ? .token : kind.hasPrefix("channel:") ? .channel(String(kind.dropFirst(8))) : nil
        do {
            let activity = try Activity.request(
                attributes: DeliveryAttributes(orderID: "B-42"),
                content: ActivityContent(state: DeliveryAttributes.ContentState(progress: 0, status: "ordered"), staleDate: nil),
                pushType: pushType)
            emit(["event": "requested"].merging(describe(activity)) { a, _ in a })
            follow(activity)
        } catch {
            emit(["event": "requestFailed", "error": "\(error)", "description": error.localizedDescription])
        }
    case "activity-update", "activity-end":
        let status = arguments.removeFirst()
        guard let activity = Activity<DeliveryAttributes>.activities.last else { return emit(["event": "noActivity"]) }
        follow(activity)
        let content = ActivityContent(state: DeliveryAttributes.ContentState(progress: 1, status: status), staleDate: nil)
        if command == "activity-update" {
            await activity.update(content, alertConfiguration: AlertConfiguration(title: "Order B-42", body: status, sound: .default))
        } else {
            await activity.end(content, dismissalPolicy: .immediate)
        }
        emit(["event": command == "activity-update" ? "updated" : "ended", "id": activity.id])
    case "activity-list":
        emit([
            "event": "activities", "activities": Activity<DeliveryAttributes>.activities.map(describe),
            "pushToStartToken": Activity<DeliveryAttributes>.pushToStartToken.map(hex) ?? "",
            "enabled": ActivityAuthorizationInfo().areActivitiesEnabled,
        ])
    case "activity-watch":
        Task {
            for await activity in Activity<DeliveryAttributes>.activityUpdates {
                emit(["event": "activityStarted"].merging(describe(activity)) { a, _ in a })
                follow(activity)
            }
        }
        Task {
            for await token in Activity<DeliveryAttributes>.pushToStartTokenUpdates { emit(["event": "pushToStartToken", "token": hex(token)]) }
        }
    default:
        emit(["event": "unknownArgument", "argument": command])
    }
}
