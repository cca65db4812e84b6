package import UserNotifications

/// What to present after a notification's service extension ran, and why.
package struct ServiceExtensionOutcome: Sendable, Equatable {
    /// Where the presented content came from.
    package enum Source: Sendable, Equatable {
        /// The extension's content handler, called within the budget.
        case extensionContent
        /// The content handler, called after `serviceExtensionTimeWillExpire()` (its best attempt).
        case bestAttemptAfterExpiry
        /// The request's own content, because the extension gave nothing usable; `reason` says why, for the log.
        case original(reason: String)
    }

    /// The request to present: same identifier and trigger; the content replaced, or the original.
    package var request: RequestRecord
    package var source: Source
    /// Attachments of the extension's content that were left out, each as `identifier: why`, for the log.
    package var droppedAttachments: [String]
    /// What the extension printed on standard output and error, capped (the first and the last 32 KiB).
    package var log: String

    package init(request: RequestRecord, source: Source, droppedAttachments: [String] = [], log: String = "") {
        self.request = request
        self.source = source
        self.droppedAttachments = droppedAttachments
        self.log = log
    }
}
