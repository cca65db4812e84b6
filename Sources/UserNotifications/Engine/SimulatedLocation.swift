package import CoreLocation
package import Foundation

/// The machine's location as `herald device location LAT LON` sets it: `DATA_DIR/location.json`. Until gpsd
/// support arrives this is the location source that location triggers follow.
package struct SimulatedLocation: Sendable {
    package let path: URL

    package init(dataDirectory: URL) {
        path = dataDirectory.appendingPathComponent("location.json")
    }

    /// Sets the location (atomically, so a reader never sees half a file).
    package func set(_ coordinate: CLLocationCoordinate2D) throws {
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
