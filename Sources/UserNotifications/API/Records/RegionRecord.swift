package import CoreLocation

/// A stored `CLCircularRegion` (a plain `CLRegion` is stored without center and radius).
package struct RegionRecord: Codable, Hashable, Sendable {
    package var identifier: String
    package var latitude: Double?
    package var longitude: Double?
    package var radius: Double?
    package var notifyOnEntry: Bool
    package var notifyOnExit: Bool

    package init(_ region: CLRegion) {
        identifier = region.identifier
        if let circle = region as? CLCircularRegion {
            latitude = circle.center.latitude
            longitude = circle.center.longitude
            radius = circle.radius
        }
        notifyOnEntry = region.notifyOnEntry
        notifyOnExit = region.notifyOnExit
    }

    package var region: CLRegion {
        let region: CLRegion
        if let latitude, let longitude, let radius {
            region = CLCircularRegion(
                center: CLLocationCoordinate2D(latitude: latitude, longitude: longitude),
                radius: radius, identifier: identifier)
        } else {
            region = CLRegion(identifier: identifier)
        }
        region.notifyOnEntry = notifyOnEntry
        region.notifyOnExit = notifyOnExit
        return region
    }
}
