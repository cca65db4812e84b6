import UserNotifications
public import UserNotificationsUI

/// What a Live Activity's view is drawn from: its attributes, its state now, and whether that state is outdated.
/// WidgetKit's name and properties.
public struct ActivityViewContext<Attributes: ActivityAttributes> {
    public let attributes: Attributes
    public let state: Attributes.ContentState
    /// The activity's ``Activity/id``.
    public let activityID: String
    /// Past the content's stale date: draw it as outdated.
    public let isStale: Bool

    public init(attributes: Attributes, state: Attributes.ContentState, activityID: String, isStale: Bool) {
        self.attributes = attributes
        self.state = state
        self.activityID = activityID
        self.isStale = isStale
    }
}

/// What a ``Widget`` declares. Herald draws one kind: ``ActivityConfiguration``.
public protocol WidgetConfiguration {}

/// The view of a Live Activity of one attributes type: `content` draws it from a context, with the view vocabulary
/// content extensions draw with (`UILabel`, `UIProgressView`, `UIStackView`, …) where iOS code returns SwiftUI
/// views. The daemon calls it at the activity's start and on every change (docs/live-activities.md).
public struct ActivityConfiguration<Attributes: ActivityAttributes>: WidgetConfiguration {
    let content: @MainActor (ActivityViewContext<Attributes>) -> UIView

    public init(for attributesType: Attributes.Type, content: @escaping @MainActor (ActivityViewContext<Attributes>) -> UIView) {
        self.content = content
    }
}

/// A widget extension's widget: `@main struct DeliveryLiveActivity: Widget { var body: some WidgetConfiguration {
/// ActivityConfiguration(for: DeliveryAttributes.self) { context in … } } }` — the extension's executable, which the
/// daemon runs as iOS runs a widget extension (docs/live-activities.md). On the main actor, as in WidgetKit.
@MainActor @preconcurrency
public protocol Widget {
    associatedtype Body: WidgetConfiguration
    init()
    var body: Body { get }
}

extension Widget {
    /// Runs this widget as a widget extension process — its executable's entry point. The daemon starts it when one of
    /// the app's activities is first shown and sends it each activity to draw, a line each; run by hand it reads the
    /// same lines and prints its views. Never returns.
    public static func main() {
        ExtensionLineHost.run(
            ActivityRecord.self, outputDescriptorVariable: WidgetExtensionWire.outputDescriptorVariable,
            wrongInput: "ActivityKit: the widget extension's input is not an activity from the device daemon (docs/live-activities.md)"
        ) { send in
            // The widget's body for each drawing, as WidgetKit evaluates it afresh.
            { record in send(WidgetDrawing.output(for: record, configuration: Self().body)) }
        }
    }
}
