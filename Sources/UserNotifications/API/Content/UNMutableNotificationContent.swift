public import Foundation
import Synchronization

/// Notification content to fill in, for a local notification or in a service extension.
///
/// ```swift
/// let content = UNMutableNotificationContent()
/// content.title = "Weekly report"
/// content.body = "Your report is ready."
/// content.sound = .default
/// content.userInfo = ["reportID": 42]
/// let request = UNNotificationRequest(identifier: "report", content: content, trigger: nil)
/// ```
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    private func update(_ change: (inout ContentStorage) -> Void) {
        storage.withLock { change(&$0) }
    }

    /// The alert's title.
    open override var title: String {
        get { super.title }
        set { update { $0.title = newValue } }
    }

    /// The alert's subtitle.
    open override var subtitle: String {
        get { super.subtitle }
        set { update { $0.subtitle = newValue } }
    }

    /// The alert's message.
    open override var body: String {
        get { super.body }
        set { update { $0.body = newValue } }
    }

    /// The number to show on the app's icon; 0 removes the badge, nil leaves it unchanged.
    open override var badge: NSNumber? {
        get { super.badge }
        set { update { $0.badge = newValue } }
    }

    /// The sound to play; nil plays none.
    open override var sound: UNNotificationSound? {
        get { super.sound }
        set { update { $0.sound = newValue } }
    }

    /// The app's own values, given back to it with the notification. Use property-list values only
    /// (strings, numbers, booleans, dates, data, arrays, dictionaries with string keys): anything else cannot
    /// be stored with a scheduled or delivered notification.
    open override var userInfo: [AnyHashable: Any] {
        get { super.userInfo }
        set {
            let box = UserInfoBox(newValue)
            update { $0.userInfo = box }
        }
    }

    /// The identifier of the `UNNotificationCategory` whose actions are offered.
    open override var categoryIdentifier: String {
        get { super.categoryIdentifier }
        set { update { $0.categoryIdentifier = newValue } }
    }

    /// The identifier notifications are grouped by.
    open override var threadIdentifier: String {
        get { super.threadIdentifier }
        set { update { $0.threadIdentifier = newValue } }
    }

    /// The launch image shown when the notification opens the app.
    open override var launchImageName: String {
        get { super.launchImageName }
        set { update { $0.launchImageName = newValue } }
    }

    /// The identifier of the window or content to bring forward when the notification opens the app.
    open override var targetContentIdentifier: String? {
        get { super.targetContentIdentifier }
        set { update { $0.targetContentIdentifier = newValue } }
    }

    /// The text the notification adds to a group summary.
    open override var summaryArgument: String {
        get { super.summaryArgument }
        set { update { $0.summaryArgument = newValue } }
    }

    /// How many items the notification adds to a group summary.
    open override var summaryArgumentCount: Int {
        get { super.summaryArgumentCount }
        set { update { $0.summaryArgumentCount = newValue } }
    }

    /// Images, sounds or movies shown with the notification; the first is the one shown in the alert.
    open override var attachments: [UNNotificationAttachment] {
        get { super.attachments }
        set { update { $0.attachments = newValue } }
    }

    /// How much the notification may interrupt the user (default `active`).
    open override var interruptionLevel: UNNotificationInterruptionLevel {
        get { super.interruptionLevel }
        set { update { $0.interruptionLevel = newValue } }
    }

    /// How the notification ranks in a summary, 0…1.
    open override var relevanceScore: Double {
        get { super.relevanceScore }
        set { update { $0.relevanceScore = newValue } }
    }

    /// The Focus filter criteria the notification matches.
    open override var filterCriteria: String? {
        get { super.filterCriteria }
        set { update { $0.filterCriteria = newValue } }
    }
}
