// The delivery app's widget extension: it draws each delivery activity — the order, its status, a progress bar and
// the arrival time — wherever the device shows it (the desktop, the notification center page, `herald device`'s
// output), again on every update. iOS code returns SwiftUI views from the same closure; here it builds the views
// content extensions draw with.
import ActivityKit
import DeliveryShared
import UserNotificationsUI

@main
struct DeliveryLiveActivity: Widget {
    var body: some WidgetConfiguration {
        ActivityConfiguration(for: DeliveryAttributes.self) { context in
            let order = UILabel()
            order.text = context.attributes.name
            order.font = .boldSystemFont(ofSize: 17)

            let status = UILabel()
            status.text = context.isStale ? "\(context.state.status) · not updated lately" : context.state.status
            if context.isStale { status.textColor = .orange }

            let progress = UIProgressView()
            progress.progress = Float(context.state.progress)
            progress.progressTintColor = .systemGreen

            let arrival = UILabel()
            arrival.text = context.state.progress >= 1 ? "Delivered" : "Arriving \(context.state.eta)"
            arrival.font = .systemFont(ofSize: 13)

            let stack = UIStackView(arrangedSubviews: [order, status, progress, arrival])
            stack.axis = .vertical
            stack.spacing = 6
            return stack
        }
    }
}
