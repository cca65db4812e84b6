import Foundation
import Synchronization
import UserNotifications

/// One connection to the daemon, with who is on the other end (from its peer credentials) and what it handles.
final class AppSession: Sendable {
    enum Role: Sendable {
        /// An installed app; it acts as this app only.
        case app(AppManifest)
        /// The `herald` binary (`herald device respond`): the person at the device.
        case control
        /// Anything else: every call fails with this message.
        case refused(String)
    }

    let role: Role
    let peer: PeerCredentials
    let conversation: DaemonConversation
    private let handles = Mutex((delegate: false, remoteNotifications: false))
    /// The `ActivityAttributes` types whose Live Activities the app watches on this connection.
    private let watchedActivityTypes = Mutex<Set<String>>([])

    init(role: Role, peer: PeerCredentials, conversation: DaemonConversation) {
        self.role = role
        self.peer = peer
        self.conversation = conversation
    }

    var bundleID: String? {
        if case .app(let app) = role { app.bundleIdentifier } else { nil }
    }

    var handlesDelegate: Bool { handles.withLock { $0.delegate } }
    var handlesRemoteNotifications: Bool { handles.withLock { $0.remoteNotifications } }

    func attach(delegate: Bool, remoteNotifications: Bool) {
        handles.withLock { $0 = (delegate, remoteNotifications) }
    }

    func watchActivities(ofType type: String) {
        watchedActivityTypes.withLock { _ = $0.insert(type) }
    }

    func watchesActivities(ofType type: String) -> Bool {
        watchedActivityTypes.withLock { $0.contains(type) }
    }

    /// Whether the app watches any Live Activity type (and so wants its push-to-start token's changes).
    var watchesActivities: Bool { watchedActivityTypes.withLock { !$0.isEmpty } }

    /// Whether the app handles `event` now.
    func handles(_ event: AppEventRecord) -> Bool {
        switch event {
        case .response, .openSettings: handlesDelegate
        case .remoteNotification: handlesRemoteNotifications
        }
    }
}
