package import Foundation

/// A stored `UNNotificationRequest` (a pending request, or the request of a delivered notification).
package struct RequestRecord: Codable, Hashable, Sendable {
    package var identifier: String
    package var content: ContentRecord
    package var trigger: TriggerRecord?

    /// Captures `request`.
    /// - Throws: `RecordError` when the content's `userInfo` cannot be stored (see `ContentRecord`), or the
    ///   trigger is of a class this package does not know.
    package init(_ request: UNNotificationRequest) throws(RecordError) {
        identifier = request.identifier
        content = try ContentRecord(request.content)
        if let trigger = request.trigger {
            guard let record = TriggerRecord(trigger) else {
                throw RecordError("the trigger of request \(request.identifier) is a \(type(of: trigger)), which cannot be stored")
            }
            self.trigger = record
        }
    }

    package var request: UNNotificationRequest {
        UNNotificationRequest(identifier: identifier, content: content.content, trigger: trigger?.trigger)
    }
}

/// A stored `UNNotification` (a delivered notification).
package struct NotificationRecord: Codable, Hashable, Sendable {
    package var date: Date
    package var request: RequestRecord

    /// Captures `notification`; throws `RecordError` as `RequestRecord.init(_:)` does.
    package init(date: Date, request: RequestRecord) {
        self.date = date
        self.request = request
    }

    package init(_ notification: UNNotification) throws(RecordError) {
        date = notification.date
        request = try RequestRecord(notification.request)
    }

    package var notification: UNNotification {
        UNNotification(request: request.request, date: date)
    }
}
