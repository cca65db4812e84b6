public import Foundation

/// A circle on the Earth's surface: a center and a radius in meters.
///
/// ```swift
/// let office = CLCircularRegion(center: CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522),
///                               radius: 100, identifier: "office")
/// office.notifyOnExit = false
/// ```
open class CLCircularRegion: CLRegion, @unchecked Sendable {
    /// The circle's center.
    public let center: CLLocationCoordinate2D
    /// The circle's radius in meters.
    public let radius: CLLocationDistance

    /// A circular region around `center` of `radius` meters.
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        self.center = center
        self.radius = radius
        super.init(identifier: identifier)
    }

    /// Whether `coordinate` lies within the circle (great-circle distance to the center at most `radius`).
    /// Always false for an invalid coordinate or center.
    open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        guard CLLocationCoordinate2DIsValid(coordinate), CLLocationCoordinate2DIsValid(center), radius.isFinite else {
            return false
        }
        return center.distance(to: coordinate) <= radius
    }

    /// A copy with the same center, radius, identifier and notification flags.
    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = CLCircularRegion(center: center, radius: radius, identifier: identifier)
        copy.copyFlags(from: self)
        return copy
    }

    /// Circular regions are equal when identifier, flags, center and radius are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? CLCircularRegion else { return false }
        return center.latitude == other.center.latitude && center.longitude == other.center.longitude
            && radius == other.radius
    }

    /// A hash consistent with `isEqual(_:)`.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(identifier)
        hasher.combine(center.latitude)
        hasher.combine(center.longitude)
        hasher.combine(radius)
        return hasher.finalize()
    }
}
