package import Foundation
package import HeraldWire

/// What a presenter shows of one notification, local or remote. One shape for `herald device --json` and for
/// apps' local notifications, so scripts read both the same way.
package struct NotificationCard: Sendable, Hashable {
    /// The apns-id of a remote notification; nil for a local one.
    package var apnsID: String?
    /// The request identifier (the collapse id or apns-id for a remote notification).
    package var identifier: String
    /// The app's bundle id.
    package var topic: String
    package var title: String?
    package var subtitle: String?
    package var body: String?
    package var badge: Int64?
    package var sound: String?
    package var categoryIdentifier: String?
    package var threadIdentifier: String?
    /// The whole payload (remote) or the content's userInfo (local).
    package var userInfo: JSONValue
    package var date: Date
    /// A line for notifications without alert text, e.g. "(no alert: background push)".
    package var note: String?
    /// The files attached (in the attachment store).
    package var attachments: [Attachment] = []
    /// How it may draw attention: interruption level, sound, quiet delivery, hidden previews, Focus.
    package var style = Style()
    /// The content's `relevanceScore` (0…1): which notification leads its group and the summary.
    package var relevanceScore: Double = 0
    /// The content's `filterCriteria`, matched against the Focus's filter for the app.
    package var filterCriteria: String?
    /// The content's `targetContentIdentifier`: which of the app's windows it belongs to.
    package var targetContentIdentifier: String?
    /// A communication notification's sender (shown in place of the app when ``Style/isCommunication``).
    package var communication: CommunicationRecord?
    /// The sender to show: the communication's, for an app entitled to communication notifications.
    package var sender: CommunicationRecord? { style.isCommunication ? communication : nil }
    /// The content's `summaryArgument` and `summaryArgumentCount` (iOS 12–14): what its group's line names and counts.
    package var summaryArgument: String?
    package var summaryArgumentCount = 0

    package struct Attachment: Sendable, Hashable {
        package var identifier: String
        package var path: String
        /// `UNNotificationAttachmentOptionsThumbnailHiddenKey`: no thumbnail of it on the notification itself.
        package var hidesThumbnail = false
        /// `UNNotificationAttachmentOptionsThumbnailClippingRectKey`: the part of the image its thumbnail shows.
        package var thumbnailClip: ClippingRect?

        package init(identifier: String, path: String, hidesThumbnail: Bool = false, thumbnailClip: ClippingRect? = nil) {
            self.identifier = identifier
            self.path = path
            self.hidesThumbnail = hidesThumbnail
            self.thumbnailClip = thumbnailClip
        }
    }

    /// The image a banner or a listed card shows: the first attachment's, unless it hides its thumbnail (as on iOS).
    package func thumbnail(where isImage: (String) -> Bool) -> Attachment? {
        guard let first = attachments.first(where: { isImage($0.path) }), !first.hidesThumbnail else { return nil }
        return first
    }

    package init(
        apnsID: String? = nil, identifier: String, topic: String, title: String? = nil, subtitle: String? = nil,
        body: String? = nil, badge: Int64? = nil, sound: String? = nil, categoryIdentifier: String? = nil,
        threadIdentifier: String? = nil, userInfo: JSONValue = .object([:]), date: Date, note: String? = nil
    ) {
        self.apnsID = apnsID
        self.identifier = identifier
        self.topic = topic
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.userInfo = userInfo
        self.date = date
        self.note = note
    }

    /// `{"event":"notification","apnsID":…,"identifier":…,"topic":…,"title":…,…,"userInfo":{…}}`
    package var jsonFields: [String: JSONValue] {
        let text = { (value: String?) in value.map(JSONValue.string) ?? .null }
        var fields: [String: JSONValue] = [
            "event": .string("notification"),
            "identifier": .string(identifier),
            "topic": .string(topic),
            "title": text(title),
            "subtitle": text(subtitle),
            "body": text(body),
            "badge": badge.map(JSONValue.integer) ?? .null,
            "sound": text(sound),
            "categoryIdentifier": text(categoryIdentifier),
            "threadIdentifier": text(threadIdentifier),
            "userInfo": userInfo,
        ]
        if let apnsID { fields["apnsID"] = .string(apnsID) }
        // How it may interrupt, when not as usual: its level, a quiet (provisional) delivery, previews turned off, the
        // Focus that silenced it.
        if style.interruptionLevel != .active { fields["interruptionLevel"] = .string(style.interruptionLevel.name) }
        if style.isQuiet { fields["quiet"] = .bool(true) }
        if style.hidesPreview { fields["previewHidden"] = .bool(true) }
        if let focus = style.silencedBy { fields["silencedBy"] = .string(focus) }
        if !style.showsBanner { fields["banner"] = .bool(false) }
        if style.isPersistent { fields["persistent"] = .bool(true) }
        if relevanceScore != 0 { fields["relevanceScore"] = .number(relevanceScore) }
        if let filterCriteria { fields["filterCriteria"] = .string(filterCriteria) }
        if let targetContentIdentifier { fields["targetContentIdentifier"] = .string(targetContentIdentifier) }
        if let sender {
            var described: [String: JSONValue] = ["name": .string(sender.senderName)]
            if let handle = sender.senderHandle { described["handle"] = .string(handle) }
            if let group = sender.groupName { described["group"] = .string(group) }
            if let conversation = sender.conversationIdentifier { described["conversation"] = .string(conversation) }
            fields["sender"] = .object(described)
        }
        if !attachments.isEmpty {
            fields["attachments"] = .array(attachments.map { .object(["identifier": .string($0.identifier), "path": .string($0.path)]) })
        }
        return fields
    }

    package var jsonLine: String { String(decoding: JSONValue.object(jsonFields).encoded(), as: UTF8.self) }

    /// A box for people:
    /// ```
    /// ┌─ com.example.app · 10:42:07 · Time Sensitive
    /// │ Title
    /// │ Body
    /// └─ badge 3 · sound default · id order-42
    /// ```
    /// With the app's previews off, as on iOS, the box holds "Notification" instead of the content.
    package var text: String {
        let time = date.formatted(date: .omitted, time: .standard)
        let from = sender.map { "\($0.groupName.map { group in "\(group) · " } ?? "")\($0.senderName) (\(topic))" }
        var heading = "┌─ \(from ?? topic) · \(time)"
        switch style.interruptionLevel {
        case .timeSensitive: heading += " · Time Sensitive"
        case .critical: heading += " · Critical"
        case .passive: heading += " · passive"
        case .active: break
        }
        if style.isQuiet { heading += " · delivered quietly" }
        if let focus = style.silencedBy { heading += " · silenced by \(focus)" }
        if !style.showsBanner { heading += " · in the list only" }
        var lines = [heading]
        if style.hidesPreview {
            lines.append("│ Notification")
        } else {
            for line in [title, subtitle, body].compactMap({ $0 }) where !line.isEmpty {
                lines.append("│ " + line)
            }
            if let note { lines.append("│ " + note) }
            for attachment in attachments { lines.append("│ 📎 \(attachment.path)") }
        }
        var details: [String] = []
        if let badge { details.append("badge \(badge)") }
        if let sound { details.append("sound \(sound)") }
        if let categoryIdentifier { details.append("category \(categoryIdentifier)") }
        details.append("id \(identifier)")
        lines.append("└─ " + details.joined(separator: " · "))
        return lines.joined(separator: "\n")
    }
}

extension NotificationCard {
    /// A notification of `bundleID` as the engine delivers it (`apnsID`: a remote one's).
    package init(_ notification: NotificationRecord, bundleID: String, apnsID: String? = nil) {
        let content = notification.request.content
        let nonEmpty = { (text: String) in text.isEmpty ? nil : text }
        self.init(
            apnsID: apnsID, identifier: notification.request.identifier, topic: bundleID, title: nonEmpty(content.title),
            subtitle: nonEmpty(content.subtitle), body: nonEmpty(content.body), badge: content.badge.map(Int64.init),
            sound: content.sound.map { $0.name ?? ($0.isCritical ? "default (critical)" : "default") },
            categoryIdentifier: nonEmpty(content.categoryIdentifier), threadIdentifier: nonEmpty(content.threadIdentifier),
            userInfo: .object(content.userInfo.mapValues(\.jsonValue)), date: notification.date
        )
        attachments = content.attachments.map {
            Attachment(
                identifier: $0.identifier, path: $0.url.path, hidesThumbnail: $0.options.thumbnailHidden == true,
                thumbnailClip: $0.options.thumbnailClippingRect)
        }
        relevanceScore = content.relevanceScore
        filterCriteria = content.filterCriteria.flatMap(nonEmpty)
        targetContentIdentifier = content.targetContentIdentifier.flatMap(nonEmpty)
        communication = content.communication
        summaryArgument = nonEmpty(content.summaryArgument)
        summaryArgumentCount = content.summaryArgumentCount
    }
}

extension PropertyListValue {
    /// JSON for presenters: dates as ISO 8601 strings, data as base64.
    package var jsonValue: JSONValue {
        switch self {
        case .string(let string): .string(string)
        case .bool(let bool): .bool(bool)
        case .integer(let int): .integer(int)
        case .unsignedInteger(let uint): uint <= UInt64(Int64.max) ? .integer(Int64(uint)) : .number(Double(uint))
        case .double(let double): .number(double)
        case .date(let date): .string(date.ISO8601Format())
        case .data(let data): .string(data.base64EncodedString())
        case .null: .null
        case .array(let array): .array(array.map(\.jsonValue))
        case .dictionary(let dictionary): .object(dictionary.mapValues(\.jsonValue))
        }
    }
}
