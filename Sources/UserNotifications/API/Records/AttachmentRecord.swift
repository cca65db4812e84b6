package import Foundation

/// A stored `UNNotificationAttachment`. Restoring one does not validate the file again.
package struct AttachmentRecord: Codable, Hashable, Sendable {
    package var identifier: String
    package var url: URL
    package var type: String
    package var options: AttachmentOptions

    package init(_ attachment: UNNotificationAttachment) {
        identifier = attachment.identifier
        url = attachment.url
        type = attachment.type
        options = attachment.options
    }

    package var attachment: UNNotificationAttachment {
        UNNotificationAttachment(identifier: identifier, url: url, type: type, options: options)
    }
}
