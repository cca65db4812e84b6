import Foundation

/// The center's weak reference to its delegate, behind a lock (the delegate may be set from any thread).
final class DelegateBox: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private weak var value: (any UNUserNotificationCenterDelegate)?

    var delegate: (any UNUserNotificationCenterDelegate)? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
