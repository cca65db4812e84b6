// A delivery app with a Live Activity, written as iOS app code is (ActivityKit): it prints its push-to-start token for
// the provider, then follows every delivery activity — started by a push, or by the app itself with
// `DeliveryApp order ID [CHANNEL]` — printing each activity's push token, its content as it changes and its end. Its
// widget extension (Widget/) draws the activities on the device's surfaces.
// Install it with `herald apps install Examples/Delivery/Delivery.app --executable-dir .build/debug`, run
// `herald device --gateway …`, then this app; docs/live-activities.md walks through it with the CLI.
import ActivityKit
import DeliveryShared
import Foundation

func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

/// Prints what happens to one activity until it is dismissed.
func follow(_ activity: Activity<DeliveryAttributes>) {
    print("\(activity.attributes.name): \(activity.content.state.status) (\(activity.id))")
    Task {
        for await token in activity.pushTokenUpdates { print("\(activity.attributes.name) push token: \(hex(token))") }
    }
    Task {
        for await content in activity.contentUpdates {
            print("\(activity.attributes.name): \(content.state.status), \(Int(content.state.progress * 100))%, ETA \(content.state.eta)")
        }
    }
    Task {
        for await state in activity.activityStateUpdates { print("\(activity.attributes.name) is \(state)") }
    }
}

@main
struct DeliveryApp {
    static func main() async {
        setvbuf(stdout, nil, _IOLBF, 0)  // each line at once, also through a pipe
        guard ActivityAuthorizationInfo().areActivitiesEnabled else {
            print("Live Activities are off for this app (herald device settings --app com.example.delivery --live-activities on)")
            return
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "order", arguments.count >= 2 {
            // The app starts the activity itself: updates by its own token, or by a channel's broadcasts.
            let pushType: PushType = arguments.count >= 3 ? .channel(arguments[2]) : .token
            do {
                let activity = try Activity.request(
                    attributes: DeliveryAttributes(name: "Order \(arguments[1])"),
                    content: ActivityContent(state: .init(progress: 0, status: "Ordered", eta: "soon"), staleDate: nil),
                    pushType: pushType)
                follow(activity)
            } catch {
                print("Cannot start the activity: \(error.localizedDescription)")
                return
            }
        }
        for activity in Activity<DeliveryAttributes>.activities where arguments.first != "order" { follow(activity) }
        Task {
            for await token in Activity<DeliveryAttributes>.pushToStartTokenUpdates { print("Push-to-start token: \(hex(token))") }
        }
        Task {
            for await activity in Activity<DeliveryAttributes>.activityUpdates { follow(activity) }
        }
        print("Following deliveries (Ctrl-C to quit)")
        let seconds = Double(ProcessInfo.processInfo.environment["DELIVERY_LIFETIME"] ?? "") ?? 86_400
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
