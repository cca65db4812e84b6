// The test app's widget extension, written as iOS widget code is: it draws the test app's delivery activities — the
// order, the status, the process's pid (so a test sees one process draw every change) and the progress — and
// misbehaves when the status asks: "crash" ends the process (saying why on its standard error, status 3), "hang" blocks it past
// any budget.
import ActivityKit
import Foundation
import UserNotificationsUI

struct DeliveryAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var progress: Double
        var status: String
    }

    var orderID: String
}

@main
struct TestLiveActivity: Widget {
    var body: some WidgetConfiguration {
        ActivityConfiguration(for: DeliveryAttributes.self) { context in
            switch context.state.status {
            case "crash":
                // Ends at once: a real crash's backtrace can take longer than the drawing budget on a loaded machine.
                FileHandle.standardError.write(Data("crashing as the status asks\n".utf8))
                exit(3)
            case "hang": Thread.sleep(forTimeInterval: 60)
            default: break
            }
            let order = UILabel()
            order.text = "Order \(context.attributes.orderID)"
            let status = UILabel()
            status.text = context.isStale ? "\(context.state.status) (stale)" : context.state.status
            let pid = UILabel()
            pid.text = "pid \(ProcessInfo.processInfo.processIdentifier)"
            let progress = UIProgressView()
            progress.progress = Float(context.state.progress)
            let stack = UIStackView(arrangedSubviews: [order, status, pid, progress])
            stack.axis = .vertical
            return stack
        }
    }
}
