/// The messages between the device daemon and a widget extension process, which draws Live Activities
/// (docs/live-activities.md).
///
/// Daemon → extension, on its standard input, one JSON object per line: an activity to draw, as the daemon hands
/// activities to apps (`ActivityRecord`: id, attributes type, attributes and state as base64 JSON, stale or not), once
/// at its start and again on every change. Extension → daemon, one JSON object per line for each activity, on the
/// descriptor `HERALD_WIDGET_EXTENSION_FD` names (the daemon passes 3; standard output when run by hand):
/// `{"id":…, "view": ViewSnapshot}`, or `{"id":…, "declined": "why"}` when its configuration is for another
/// attributes type or the activity does not decode as it. Everything it prints is its log.
package enum WidgetExtensionWire {
    package static let outputDescriptorVariable = "HERALD_WIDGET_EXTENSION_FD"

    /// One line from the extension.
    package struct Output: Codable, Sendable, Equatable {
        /// The activity's id, as the input named it.
        package var id: String
        package var view: ViewSnapshot?
        package var declined: String?

        package init(id: String, view: ViewSnapshot? = nil, declined: String? = nil) {
            self.id = id
            self.view = view
            self.declined = declined
        }
    }
}
