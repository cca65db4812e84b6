public import Foundation
import Synchronization

/// An area that can be monitored: the base of `CLCircularRegion`.
///
/// `notifyOnEntry` and `notifyOnExit` say which crossings fire a `UNLocationNotificationTrigger`;
/// both are true by default.
open class CLRegion: NSObject, NSCopying, @unchecked Sendable {
    private struct Flags {
        var notifyOnEntry = true
        var notifyOnExit = true
    }

    /// The region's identifier, chosen by the app.
    public let identifier: String
    private let flags = Mutex(Flags())

    package init(identifier: String) {
        self.identifier = identifier
    }

    /// Whether entering the region fires (default true).
    open var notifyOnEntry: Bool {
        get { flags.withLock { $0.notifyOnEntry } }
        set { flags.withLock { $0.notifyOnEntry = newValue } }
    }

    /// Whether leaving the region fires (default true).
    open var notifyOnExit: Bool {
        get { flags.withLock { $0.notifyOnExit } }
        set { flags.withLock { $0.notifyOnExit = newValue } }
    }

    /// A copy with the same identifier and notification flags.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = CLRegion(identifier: identifier)
        copy.copyFlags(from: self)
        return copy
    }

    /// Copies `notifyOnEntry` and `notifyOnExit` from `region` (for subclasses' `copy(with:)`).
    package func copyFlags(from region: CLRegion) {
        let source = region.flags.withLock { $0 }
        flags.withLock { $0 = source }
    }

    /// Regions are equal when they are of the same class with the same identifier and flags.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLRegion, type(of: other) == type(of: self) else { return false }
        return identifier == other.identifier && notifyOnEntry == other.notifyOnEntry && notifyOnExit == other.notifyOnExit
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        identifier.hashValue
    }
}
