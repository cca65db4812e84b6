public import CoreLocation
import Foundation

/// Fires when the device enters or leaves a region (as the region's `notifyOnEntry` / `notifyOnExit` say).
///
/// ```swift
/// let region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522),
///                               radius: 200, identifier: "paris")
/// region.notifyOnExit = false
/// let trigger = UNLocationNotificationTrigger(region: region, repeats: false)
/// ```
open class UNLocationNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    // A private copy that is never handed out, so the trigger stays immutable.
    private let storedRegion: CLRegion

    /// A trigger for `region` (copied: later changes to the region do not affect the trigger).
    public init(region: CLRegion, repeats: Bool) {
        storedRegion = region.copy() as? CLRegion ?? region
        super.init(repeats: repeats)
    }

    /// A copy of the trigger's region.
    open var region: CLRegion {
        storedRegion.copy() as? CLRegion ?? storedRegion
    }

    /// Location triggers are equal when their regions and repetition are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? UNLocationNotificationTrigger else { return false }
        return storedRegion.isEqual(other.storedRegion)
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        storedRegion.hash
    }
}
