import Foundation

/// A stored `UNNotificationContent`, for pending requests and delivered notifications.
///
/// `userInfo` is kept as `PropertyListValue`s, so JSON and property-list values round-trip exactly; a
/// content whose `userInfo` holds anything else cannot be stored (`init(_:)` throws) — as on iOS, where such
/// a request cannot be added. The badge is stored as an integer.
package struct ContentRecord: Codable, Hashable, Sendable {
    package var title: String
    package var subtitle: String
    package var body: String
    package var badge: Int?
    package var sound: SoundRecord?
    package var userInfo: [String: PropertyListValue]
    package var categoryIdentifier: String
    package var threadIdentifier: String
    package var launchImageName: String
    package var targetContentIdentifier: String?
    package var summaryArgument: String
    package var summaryArgumentCount: Int
    package var attachments: [AttachmentRecord]
    package var interruptionLevel: UInt
    package var relevanceScore: Double
    package var filterCriteria: String?
    /// A communication notification's sender (`updating(from:)`); absent in records written before.
    package var communication: CommunicationRecord?

    /// Captures `content`.
    /// - Throws: `RecordError` when `userInfo` holds a value that is not a property-list value, a key that is
    ///   not a string, or a non-finite number; the message names the value, like `userInfo["when"]`.
    package init(_ content: UNNotificationContent) throws(RecordError) {
        let values = content.values
        title = values.title
        subtitle = values.subtitle
        body = values.body
        badge = values.badge?.intValue
        sound = values.sound.map(SoundRecord.init)
        userInfo = try PropertyListValue.dictionary(fromUserInfo: values.userInfo.dictionary)
        categoryIdentifier = values.categoryIdentifier
        threadIdentifier = values.threadIdentifier
        launchImageName = values.launchImageName
        targetContentIdentifier = values.targetContentIdentifier
        summaryArgument = values.summaryArgument
        summaryArgumentCount = values.summaryArgumentCount
        attachments = values.attachments.map(AttachmentRecord.init)
        interruptionLevel = values.interruptionLevel.rawValue
        relevanceScore = values.relevanceScore
        filterCriteria = values.filterCriteria
        communication = values.communication
    }

    /// Immutable content with the stored values (an unknown interruption level reads as `active`).
    package var content: UNNotificationContent {
        var values = ContentStorage()
        values.title = title
        values.subtitle = subtitle
        values.body = body
        values.badge = badge.map { NSNumber(value: $0) }
        values.sound = sound?.sound
        values.userInfo = UserInfoBox(PropertyListValue.userInfo(from: userInfo))
        values.categoryIdentifier = categoryIdentifier
        values.threadIdentifier = threadIdentifier
        values.launchImageName = launchImageName
        values.targetContentIdentifier = targetContentIdentifier
        values.summaryArgument = summaryArgument
        values.summaryArgumentCount = summaryArgumentCount
        values.attachments = attachments.map(\.attachment)
        values.interruptionLevel = UNNotificationInterruptionLevel(rawValue: interruptionLevel) ?? .active
        values.relevanceScore = relevanceScore
        values.filterCriteria = filterCriteria
        values.communication = communication
        return UNNotificationContent(storage: values)
    }
}
