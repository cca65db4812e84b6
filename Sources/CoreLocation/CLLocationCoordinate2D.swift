import Foundation

/// A latitude or longitude in degrees (WGS 84).
public typealias CLLocationDegrees = Double

/// A distance in meters.
public typealias CLLocationDistance = Double

/// A geographic coordinate: latitude and longitude in degrees.
///
/// ```swift
/// let paris = CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522)
/// ```
public struct CLLocationCoordinate2D: Sendable {
    /// Degrees north (positive) or south (negative) of the equator, -90…90.
    public var latitude: CLLocationDegrees
    /// Degrees east (positive) or west (negative) of the prime meridian, -180…180.
    public var longitude: CLLocationDegrees

    /// The coordinate (0, 0).
    public init() {
        latitude = 0
        longitude = 0
    }

    /// A coordinate from a latitude and a longitude in degrees.
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Makes a coordinate from a latitude and a longitude in degrees.
public func CLLocationCoordinate2DMake(_ latitude: CLLocationDegrees, _ longitude: CLLocationDegrees) -> CLLocationCoordinate2D {
    CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
}

/// Whether `coord` is a usable coordinate: finite, latitude within -90…90 and longitude within -180…180.
public func CLLocationCoordinate2DIsValid(_ coord: CLLocationCoordinate2D) -> Bool {
    coord.latitude.isFinite && coord.longitude.isFinite
        && (-90...90).contains(coord.latitude) && (-180...180).contains(coord.longitude)
}

/// The coordinate Core Location uses for "no coordinate" (-180, -180), which is not valid.
public let kCLLocationCoordinate2DInvalid = CLLocationCoordinate2D(latitude: -180, longitude: -180)

extension CLLocationCoordinate2D {
    /// The mean Earth radius (IUGG, meters) used for great-circle distances.
    package static let earthRadius: CLLocationDistance = 6_371_008.8

    /// The great-circle (haversine) distance to `other` in meters, on a sphere of `earthRadius`.
    /// Within 0.5 % of the WGS 84 ellipsoid's distance, which is plenty for region monitoring.
    package func distance(to other: CLLocationCoordinate2D) -> CLLocationDistance {
        let radians = Double.pi / 180
        let phi1 = latitude * radians
        let phi2 = other.latitude * radians
        let deltaPhi = (other.latitude - latitude) * radians
        let deltaLambda = (other.longitude - longitude) * radians
        let sinPhi = sin(deltaPhi / 2)
        let sinLambda = sin(deltaLambda / 2)
        let a = sinPhi * sinPhi + cos(phi1) * cos(phi2) * sinLambda * sinLambda
        return 2 * Self.earthRadius * asin(min(1, a.squareRoot()))
    }
}
