import CoreLocation
import Foundation
import HeraldTesting
import Testing

@testable import UserNotifications

@Suite struct LocationTests {
    static let paris = CLLocationCoordinate2D(latitude: 48.8566, longitude: 2.3522)
    /// Meters per degree of latitude on the sphere used.
    static let metersPerDegree = 2 * Double.pi * CLLocationCoordinate2D.earthRadius / 360

    /// JSON has no NaN or infinity: writing one would leave a file no reader can parse, so it is refused and the
    /// location set before stays.
    @Test func theSimulatedLocationRefusesCoordinatesThatAreNoPlace() throws {
        let directory = try TemporaryDirectory()
        let location = SimulatedLocation(dataDirectory: directory.url)
        try location.set(Self.paris)
        for coordinate in [(Double.nan, 2.0), (48.0, .infinity), (-.infinity, 0), (91, 0), (0, 181)] {
            #expect(throws: SimulatedLocation.InvalidCoordinate.self) {
                try location.set(CLLocationCoordinate2D(latitude: coordinate.0, longitude: coordinate.1))
            }
        }
        let current = try #require(location.current())
        #expect(current.coordinate.latitude == Self.paris.latitude && current.coordinate.longitude == Self.paris.longitude)
    }

    @Test func coordinatesAndValidity() {
        let made = CLLocationCoordinate2DMake(10, 20)
        #expect(made.latitude == 10 && made.longitude == 20)
        #expect(CLLocationCoordinate2D().latitude == 0 && CLLocationCoordinate2D().longitude == 0)
        #expect(CLLocationCoordinate2DIsValid(Self.paris))
        #expect(!CLLocationCoordinate2DIsValid(kCLLocationCoordinate2DInvalid))
        #expect(!CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: 91, longitude: 0)))
        #expect(!CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: .nan, longitude: 0)))
    }

    @Test func haversineDistances() {
        let london = CLLocationCoordinate2D(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(Self.paris.distance(to: london) - 343_560) < 500)
        #expect(Self.paris.distance(to: Self.paris) == 0)
        // Antipodes: half the circumference.
        let north = CLLocationCoordinate2D(latitude: 90, longitude: 0)
        let south = CLLocationCoordinate2D(latitude: -90, longitude: 0)
        #expect(abs(north.distance(to: south) - Double.pi * CLLocationCoordinate2D.earthRadius) < 1)
    }

    @Test(arguments: [(99.0, true), (100.0, true), (101.0, false), (0, true), (5_000, false)])
    func circularRegionContainsPointsWithinItsRadius(metersNorth: Double, inside: Bool) {
        let region = CLCircularRegion(center: Self.paris, radius: 100, identifier: "paris")
        let point = CLLocationCoordinate2D(latitude: Self.paris.latitude + metersNorth / Self.metersPerDegree, longitude: Self.paris.longitude)
        #expect(region.contains(point) == inside)
    }

    @Test func regionsAcrossTheAntimeridian() {
        let region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: 0, longitude: 179.9995), radius: 200, identifier: "dateline")
        #expect(region.contains(CLLocationCoordinate2D(latitude: 0, longitude: -179.9995)))  // about 111 m away
    }

    @Test func invalidCoordinatesAreNeverInside() {
        let region = CLCircularRegion(center: Self.paris, radius: 1_000_000_000, identifier: "huge")
        #expect(!region.contains(kCLLocationCoordinate2DInvalid))
        #expect(!CLCircularRegion(center: kCLLocationCoordinate2DInvalid, radius: 100, identifier: "bad").contains(Self.paris))
    }

    @Test func regionFlagsDefaultToTrueAndCopiesAreIndependent() throws {
        let region = CLCircularRegion(center: Self.paris, radius: 100, identifier: "paris")
        #expect(region.notifyOnEntry && region.notifyOnExit)
        region.notifyOnExit = false
        let copy = try #require(region.copy() as? CLCircularRegion)
        #expect(copy !== region && copy.isEqual(region) && !copy.notifyOnExit && copy.radius == 100)
        copy.notifyOnEntry = false
        #expect(region.notifyOnEntry && !copy.isEqual(region))
    }

    @Test func locationTriggerKeepsItsOwnCopyOfTheRegion() throws {
        let region = CLCircularRegion(center: Self.paris, radius: 100, identifier: "paris")
        let trigger = UNLocationNotificationTrigger(region: region, repeats: true)
        region.notifyOnEntry = false
        #expect(trigger.region.notifyOnEntry)
        trigger.region.notifyOnExit = false
        #expect(trigger.region.notifyOnExit)
        #expect(trigger.repeats && trigger.region.identifier == "paris")
        #expect((trigger.region as? CLCircularRegion)?.center.latitude == Self.paris.latitude)
        #expect(trigger.nextFireDate(after: .now, scheduledAt: .now, calendar: .current) == nil)
    }
}
