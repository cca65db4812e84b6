import Foundation
import HeraldWire
import UserNotifications
import UserNotificationsUI

/// What the notification center page is sent, as JSON (docs/content-extensions.md lists the messages).
enum NotificationCenterJSON {
    /// A listed notification: `{"app", "appName", "id", "title", "subtitle", "body", "date", "image", "actions",
    /// "expandable", "level", "quiet", "silencedBy", "inSummary", "thread", "summaryArgument", "summaryArgumentCount",
    /// "summaryFormat"}`: the level it was delivered at, a provisional delivery, the Focus that silenced it, whether it
    /// came with the scheduled summary, and what the page groups it by (app and thread) and says under a group. With
    /// the app's previews off (`showPreviewsSetting` `.never`) the page is sent what iOS shows then: the app and the
    /// category's placeholder ("Notification" without one), never the content — the title and subtitle only when the
    /// category shows them (`.hiddenPreviewsShowTitle`, `.hiddenPreviewsShowSubtitle`).
    static func notification(_ presentation: Presentation, files: ServedFiles) -> JSONValue {
        let card = presentation.card
        let text = { (value: String?) in value.map(JSONValue.string) ?? .null }
        let hidden = card.style.hidesPreview
        let thumbnail = hidden ? nil : card.thumbnail { ServedFiles.imageTypes[($0 as NSString).pathExtension.lowercased()] != nil }
        let image = thumbnail.flatMap { files.address(of: $0.path) }
        return .object([
            "app": .string(presentation.id.bundleID),
            "appName": .string(presentation.app.displayName),
            "id": .string(presentation.id.identifier),
            "title": hidden && !presentation.hiddenPreviewsShowTitle ? .null : text(card.title),
            "subtitle": hidden && !presentation.hiddenPreviewsShowSubtitle ? .null : text(card.subtitle),
            "body": hidden ? .string(presentation.hiddenPreviewsPlaceholder ?? "Notification") : text(card.body ?? card.note),
            "date": .number((card.date.timeIntervalSince1970 * 1000).rounded()),
            "image": text(image),
            "imageClip": thumbnail?.thumbnailClip.map { clip in
                .array([clip.x, clip.y, clip.width, clip.height].map(JSONValue.number))
            } ?? .null,
            "actions": .array(presentation.actions.map(action)),
            "reportsDismissal": .bool(presentation.reportsDismissal),
            "expandable": .bool(presentation.hasContentExtension && !hidden),
            "level": .string(card.style.interruptionLevel.name),
            "quiet": .bool(card.style.isQuiet),
            "silencedBy": text(card.style.silencedBy),
            "inSummary": .bool(card.style.inSummary),
            "thread": text(card.threadIdentifier),
            "summaryArgument": hidden ? .null : text(card.summaryArgument),
            "summaryArgumentCount": .integer(Int64(card.summaryArgumentCount)),
            "summaryFormat": text(presentation.summaryFormat),
            "sender": card.sender.map { sender in
                .object([
                    "name": .string(sender.senderName), "group": text(sender.groupName),
                    "avatar": text(presentation.senderAvatarPath.flatMap(files.address(of:))),
                ])
            } ?? .null,
        ])
    }

    /// `{"type": "notifications", "notifications": […]}`: the whole list, newest first, when a page connects.
    static func list(_ presentations: [Presentation], files: ServedFiles) -> JSONValue {
        .object(["type": .string("notifications"), "notifications": .array(presentations.map { notification($0, files: files) })])
    }

    /// A change of the list, so that a change costs the same with 1,000 notifications listed as with 10:
    /// `{"type": "presented", "notification": …}` (it goes first, replacing one with its app and id) or
    /// `{"type": "withdrawn", "notifications": [{"app", "id"}, …]}`.
    static func change(_ change: NotificationCenterPresenter.Change, files: ServedFiles) -> JSONValue {
        switch change {
        case .activity(let activity):
            .object(["type": .string("activity"), "activity": Self.activity(activity, files: files)])
        case .activityGone(let id):
            .object(["type": .string("activityGone"), "id": .string(id)])
        case .focus(let status):
            .object(["type": .string("focus"), "focus": status.map(focus) ?? .null])
        case .summary(let summary, let presentations):
            .object(["type": .string("summary"), "summary": Self.summary(summary, presentations)])
        case .presented(let presentation):
            .object(["type": .string("presented"), "notification": notification(presentation, files: files)])
        case .withdrawn(let ids):
            .object([
                "type": .string("withdrawn"),
                "notifications": .array(ids.map { .object(["app": .string($0.bundleID), "id": .string($0.identifier)]) }),
            ])
        }
    }

    /// A scheduled summary: `{"title", "date", "count", "highlights": [{"app", "appName", "id", "title", "body"}]}`, the
    /// most relevant first (bodies hidden as the list hides them).
    static func summary(_ summary: NotificationSummary, _ presentations: [Presentation]) -> JSONValue {
        let highlights = presentations.prefix(NotificationSummary.highlights).map { presentation -> JSONValue in
            let card = presentation.card
            let hidden = card.style.hidesPreview
            return .object([
                "app": .string(presentation.id.bundleID), "appName": .string(presentation.app.displayName),
                "id": .string(presentation.id.identifier),
                "title": hidden ? .null : card.title.map(JSONValue.string) ?? .null,
                "body": .string(hidden ? presentation.hiddenPreviewsPlaceholder ?? "Notification" : card.body ?? ""),
            ])
        }
        return .object([
            "title": .string(summary.title), "date": .number((summary.date.timeIntervalSince1970 * 1000).rounded()),
            "count": .integer(Int64(presentations.count)), "highlights": .array(highlights),
        ])
    }

    /// A Focus that is on: `{"name", "reason": "manual"|"schedule"|"desktop", "until": ms since 1970 or null}`.
    static func focus(_ status: Focus.Status) -> JSONValue {
        var until: JSONValue = .null
        let reason: String
        switch status.reason {
        case .manual(let end):
            reason = "manual"
            until = end.map { .number(($0.timeIntervalSince1970 * 1000).rounded()) } ?? .null
        case .schedule: reason = "schedule"
        case .desktop: reason = "desktop"
        }
        return .object(["name": .string(status.name), "reason": .string(reason), "until": until])
    }

    /// `{"type": "activities", "activities": […]}`: the Live Activities section when a page connects.
    static func activities(_ activities: [ActivityPresentation], files: ServedFiles) -> JSONValue {
        .object(["type": .string("activities"), "activities": .array(activities.map { activity($0, files: files) })])
    }

    /// A Live Activity: `{"id", "app", "appName", "title", "fields": [{"name", "value"}], "progress", "phase",
    /// "alertTitle", "alertBody", "date", "view"}`, `view` (as ``view(_:files:)``, or null) the widget extension's drawing.
    static func activity(_ activity: ActivityPresentation, files: ServedFiles) -> JSONValue {
        let text = { (value: String?) in value.map(JSONValue.string) ?? .null }
        return .object([
            "id": .string(activity.id), "app": .string(activity.app.bundleID), "appName": .string(activity.app.displayName),
            "title": .string(activity.title),
            "fields": .array(activity.fields.map { .object(["name": .string($0.name), "value": .string($0.value)]) }),
            "progress": activity.progress.map(JSONValue.number) ?? .null, "phase": .string(activity.phase),
            "alertTitle": text(activity.alertTitle), "alertBody": text(activity.alertBody),
            "date": .number((activity.updatedAt.timeIntervalSince1970 * 1000).rounded()),
            "view": activity.view.map { view($0, files: files) } ?? .null,
        ])
    }

    static func action(_ action: Presentation.Action) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(action.identifier), "title": .string(action.title), "destructive": .bool(action.isDestructive),
        ]
        if let input = action.textInput {
            fields["textInput"] = .object(["button": .string(input.buttonTitle), "placeholder": .string(input.placeholder)])
        }
        return .object(fields)
    }

    /// An extension's view: `{"kind": "label"|"image"|"stack"|"progress"|"button"|"view", …, "children": […]}`.
    /// An image is drawn from `src` when its file, or the bytes it was made from, can be served.
    static func view(_ snapshot: ViewSnapshot, files: ServedFiles) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        let color = { (color: UIColor?) in color.map { JSONValue.string($0.description) } ?? .null }
        switch snapshot.drawing {
        case .view:
            fields["kind"] = .string("view")
        case .label(let text, let textColor, let pointSize, let bold, let lines):
            fields = [
                "kind": .string("label"), "text": .string(text), "color": color(textColor), "size": pointSize.map(JSONValue.number) ?? .null,
                "bold": .bool(bold), "lines": .integer(Int64(lines)),
            ]
        case .image(let path, let format, let bytes, let data):
            let source = path.flatMap { files.address(of: $0) } ?? data.flatMap { files.address(ofImage: $0, format: format) }
            fields = [
                "kind": .string("image"), "format": .string(format), "bytes": .integer(Int64(bytes)),
                "src": source.map(JSONValue.string) ?? .null,
            ]
        case .stack(let vertical, let spacing):
            fields = ["kind": .string("stack"), "vertical": .bool(vertical), "spacing": .number(spacing)]
        case .progress(let value, let tint):
            fields = ["kind": .string("progress"), "value": .number(value), "color": color(tint)]
        case .button(let title, let enabled):
            fields = ["kind": .string("button"), "title": .string(title), "enabled": .bool(enabled), "number": .integer(Int64(snapshot.button ?? 0))]
        }
        fields["background"] = color(snapshot.background)
        fields["children"] = .array(snapshot.children.map { view($0, files: files) })
        return .object(fields)
    }
}
