/// Which of an app's device tokens a link request or answer is about. An app on a device holds one ``app`` token
/// (for `alert`, `background` and the other push types), one ``pushToStart`` token when it supports Live Activities
/// (ActivityKit's `pushToStartToken`, for a `liveactivity` push with `"event": "start"`), and one ``activity`` token
/// per Live Activity that asked for one (`pushType: .token`, or `input-push-token` in a remote start). A ``webPush``
/// token is a Web Push subscription's (docs/web-push.md): its endpoint takes RFC 8030 messages, never APNs pushes.
public enum TokenKind: String, Sendable, Hashable, CaseIterable {
    case app
    case pushToStart
    case activity
    case webPush

    /// Whether the token takes `liveactivity` pushes (and only those).
    public var isLiveActivity: Bool { self == .pushToStart || self == .activity }
}
