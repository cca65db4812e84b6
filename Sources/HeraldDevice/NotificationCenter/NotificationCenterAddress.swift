package import Foundation
import Synchronization

/// Where the notification center page is, once the daemon serves it: the desktop's "Show" action opens it at a
/// notification.
package final class NotificationCenterAddress: Sendable {
    private let served = Mutex<(port: Int, secret: String)?>(nil)

    package init() {}

    func set(port: Int, secret: String) {
        served.withLock { $0 = (port, secret) }
    }

    /// The page (opened at `notification` when given); nil while it is not served.
    package func url(at notification: Presentation.ID? = nil) -> URL? {
        served.withLock { $0 }.map { NotificationCenterServer.address(port: $0.port, secret: $0.secret, notification: notification) }
    }
}
