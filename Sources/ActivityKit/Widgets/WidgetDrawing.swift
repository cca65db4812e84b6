import Foundation
import UserNotifications
import UserNotificationsUI

/// One activity drawn by a widget's configuration: its view as a tree, or why this widget does not draw it.
enum WidgetDrawing {
    /// The drawing the daemon reads for `record`.
    @MainActor static func output(for record: ActivityRecord, configuration: some WidgetConfiguration) -> WidgetExtensionWire.Output {
        guard let drawing = configuration as? any ActivityDrawing else {
            return WidgetExtensionWire.Output(id: record.id, declined: "the widget's configuration is not an ActivityConfiguration")
        }
        do {
            return WidgetExtensionWire.Output(id: record.id, view: ViewSnapshot.of(try drawing.view(for: record)))
        } catch {
            return WidgetExtensionWire.Output(id: record.id, declined: error.reason)
        }
    }
}

/// Why a configuration does not draw an activity.
struct DrawingDeclined: Error {
    var reason: String
}

/// A configuration that draws activities from the daemon's records.
protocol ActivityDrawing {
    @MainActor func view(for record: ActivityRecord) throws(DrawingDeclined) -> UIView
}

extension ActivityConfiguration: ActivityDrawing {
    @MainActor func view(for record: ActivityRecord) throws(DrawingDeclined) -> UIView {
        let type = String(describing: Attributes.self)
        guard record.attributesType == type else {
            throw DrawingDeclined(reason: "this widget draws \(type) activities, not \(record.attributesType)")
        }
        let decoder = JSONDecoder()
        let attributes: Attributes
        let state: Attributes.ContentState
        do {
            attributes = try decoder.decode(Attributes.self, from: record.attributes)
            state = try decoder.decode(Attributes.ContentState.self, from: record.state)
        } catch {
            throw DrawingDeclined(reason: "the activity does not decode as \(type): \(error)")
        }
        return content(ActivityViewContext(attributes: attributes, state: state, activityID: record.id, isStale: record.isStale))
    }
}
