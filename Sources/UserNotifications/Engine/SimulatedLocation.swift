package import CoreLocation
package import Foundation

/// The machine's location as `herald device location LAT LON` sets it: `DATA_DIR/location.json`. Until gpsd
/// support arrives this is the location source that location triggers follow.
package struct SimulatedLocation: Sendable {
    package let path: URL

    package init(dataDirectory: URL) {
        path = dataDirectory.appendingPathComponent("location.json")
    }

    /// A coordinate that is no place: not finite, or beyond -90…90 / -180…180 degrees.
    package struct InvalidCoordinate: Error, CustomStringConvertible {
        package let coordinate: CLLocationCoordinate2D

        package var description: String {
            "\(coordinate.latitude), \(coordinate.longitude) is no place: a location is latitude -90…90 and longitude -180…180, e.g. 52.52 13.405"
        }
    }

    /// Sets the location (atomically, so a reader never sees half a file).
    ///
    /// - Throws: ``InvalidCoordinate`` for a coordinate that is not finite or out of range (JSON has no NaN, so it
    ///   would leave a file nobody can read); the location set before stays.
    package func set(_ coordinate: CLLocationCoordinate2D) throws {
        guard CLLocationCoordinate2DIsValid(coordinate) else { throw InvalidCoordinate(coordinate: coordinate) }
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = #"{"latitude":\#(coordinate.latitude),"longitude":\#(coordinate.longitude)}"#
        try Data(text.utf8).write(to: path, options: .atomic)
    }

    /// The location and when it was set; nil when none was.
    package func current() -> (coordinate: CLLocationCoordinate2D, setAt: Date)? {
        guard let data = try? Data(contentsOf: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let latitude = (object["latitude"] as? NSNumber)?.doubleValue,
            let longitude = (object["longitude"] as? NSNumber)?.doubleValue,
            let setAt = (try? FileManager.default.attributesOfItem(atPath: path.path))?[.modificationDate] as? Date
        else { return nil }
        return (CLLocationCoordinate2D(latitude: latitude, longitude: longitude), setAt)
    }
}
