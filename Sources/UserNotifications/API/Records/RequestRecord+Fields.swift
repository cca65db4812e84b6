extension RequestRecord {
    /// A request from its parts, for requests that do not come from an app's `UNNotificationRequest` (a
    /// remote notification's, with the trigger `.push`).
    package init(identifier: String, content: ContentRecord, trigger: TriggerRecord?) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }
}
