import Foundation

/// Everything a `UNNotificationContent` holds; the content keeps one in a `Mutex`.
struct ContentStorage: Sendable {
    var title = ""
    var subtitle = ""
    var body = ""
    var badge: NSNumber?
    var sound: UNNotificationSound?
    var userInfo = UserInfoBox([:])
    var categoryIdentifier = ""
    var threadIdentifier = ""
    var launchImageName = ""
    var targetContentIdentifier: String?
    var summaryArgument = ""
    var summaryArgumentCount = 0
    var attachments: [UNNotificationAttachment] = []
    var interruptionLevel = UNNotificationInterruptionLevel.active
    var relevanceScore = 0.0
    var filterCriteria: String?
    /// Set by `updating(from:)`: a communication notification's sender.
    var communication: CommunicationRecord?

    func isEqual(to other: ContentStorage) -> Bool {
        title == other.title && subtitle == other.subtitle && body == other.body && badge == other.badge
            && sound == other.sound && categoryIdentifier == other.categoryIdentifier
            && threadIdentifier == other.threadIdentifier && launchImageName == other.launchImageName
            && targetContentIdentifier == other.targetContentIdentifier && summaryArgument == other.summaryArgument
            && summaryArgumentCount == other.summaryArgumentCount && attachments == other.attachments
            && interruptionLevel == other.interruptionLevel && relevanceScore == other.relevanceScore
            && filterCriteria == other.filterCriteria && communication == other.communication && userInfo.isEqual(to: other.userInfo)
    }

    /// Hashes the strings only (`userInfo` and objects are left to equality), consistent with `isEqual(to:)`.
    func hash(into hasher: inout Hasher) {
        hasher.combine(title)
        hasher.combine(subtitle)
        hasher.combine(body)
        hasher.combine(categoryIdentifier)
        hasher.combine(threadIdentifier)
    }
}
