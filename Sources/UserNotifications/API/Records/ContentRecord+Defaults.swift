extension ContentRecord {
    /// Empty content, every field at the default of a new `UNMutableNotificationContent` (active interruption
    /// level, relevance 0, no badge, sound, attachments or `userInfo`); for content built from data, such
    /// as a remote notification's payload.
    package init() {
        title = ""
        subtitle = ""
        body = ""
        badge = nil
        sound = nil
        userInfo = [:]
        categoryIdentifier = ""
        threadIdentifier = ""
        launchImageName = ""
        targetContentIdentifier = nil
        summaryArgument = ""
        summaryArgumentCount = 0
        attachments = []
        interruptionLevel = UNNotificationInterruptionLevel.active.rawValue
        relevanceScore = 0
        filterCriteria = nil
    }
}
