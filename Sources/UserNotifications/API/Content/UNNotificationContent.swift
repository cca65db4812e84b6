public import Foundation
import Synchronization

/// What a notification shows: title, body, sound, badge, attachments and the app's own `userInfo`.
///
/// Immutable; build one with `UNMutableNotificationContent`. `copy()` gives immutable content and
/// `mutableCopy()` a `UNMutableNotificationContent` to change:
///
/// ```swift
/// let content = request.content.mutableCopy() as! UNMutableNotificationContent
/// content.title = "Updated"
/// ```
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // Every stored value lives in this one Mutex; `UNMutableNotificationContent` writes through it.
    let storage: Mutex<ContentStorage>

    init(storage: ContentStorage) {
        self.storage = Mutex(storage)
    }

    /// Empty content.
    public override convenience init() {
        self.init(storage: ContentStorage())
    }

    /// A copy of every value, taken under the lock.
    var values: ContentStorage {
        storage.withLock { $0 }
    }

    /// The alert's title.
    open var title: String { storage.withLock { $0.title } }
    /// The alert's subtitle.
    open var subtitle: String { storage.withLock { $0.subtitle } }
    /// The alert's message.
    open var body: String { storage.withLock { $0.body } }
    /// The number to show on the app's icon; 0 removes the badge, nil leaves it unchanged.
    open var badge: NSNumber? { storage.withLock { $0.badge } }
    /// The sound to play; nil plays none.
    open var sound: UNNotificationSound? { storage.withLock { $0.sound } }
    /// The app's own property-list values, given back to it with the notification.
    open var userInfo: [AnyHashable: Any] { storage.withLock { $0.userInfo.dictionary } }
    /// The identifier of the `UNNotificationCategory` whose actions are offered.
    open var categoryIdentifier: String { storage.withLock { $0.categoryIdentifier } }
    /// The identifier notifications are grouped by.
    open var threadIdentifier: String { storage.withLock { $0.threadIdentifier } }
    /// The launch image shown when the notification opens the app.
    open var launchImageName: String { storage.withLock { $0.launchImageName } }
    /// The identifier of the window or content to bring forward when the notification opens the app.
    open var targetContentIdentifier: String? { storage.withLock { $0.targetContentIdentifier } }
    /// The text the notification adds to a group summary.
    open var summaryArgument: String { storage.withLock { $0.summaryArgument } }
    /// How many items the notification adds to a group summary.
    open var summaryArgumentCount: Int { storage.withLock { $0.summaryArgumentCount } }
    /// Images, sounds or movies shown with the notification; the first is the one shown in the alert.
    open var attachments: [UNNotificationAttachment] { storage.withLock { $0.attachments } }
    /// How much the notification may interrupt the user (default `active`).
    open var interruptionLevel: UNNotificationInterruptionLevel { storage.withLock { $0.interruptionLevel } }
    /// How the notification ranks in a summary, 0…1.
    open var relevanceScore: Double { storage.withLock { $0.relevanceScore } }
    /// The Focus filter criteria the notification matches.
    open var filterCriteria: String? { storage.withLock { $0.filterCriteria } }

    /// Immutable content with the same values (the content itself when it is already immutable).
    open func copy(with zone: NSZone? = nil) -> Any {
        if type(of: self) == UNNotificationContent.self {
            return self
        }
        return UNNotificationContent(storage: values)
    }

    /// A `UNMutableNotificationContent` with the same values.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        UNMutableNotificationContent(storage: values)
    }

    /// Contents are equal when all their values are, mutable or not.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationContent else { return false }
        return other === self || values.isEqual(to: other.values)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        values.hash(into: &hasher)
        return hasher.finalize()
    }
}
