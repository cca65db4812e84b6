import Foundation
import HeraldDevice
import HeraldTesting
import Testing
import UserNotifications

/// The device's duplicate journal: concurrent sightings share transactions and still count each id once.
@Suite struct DeliveryJournalTests {
    @Test func concurrentSightingsCountEachIDOnceAndSurviveAReopen() async throws {
        let path = NSTemporaryDirectory() + "herald-journal-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let ids = (0..<100).map { "id-\($0)" }

        let journal = try DeliveryJournal(path: path)
        let firsts = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
            for id in ids + ids {
                group.addTask { (id, try await journal.firstSighting(of: id)) }
            }
            return try await group.reduce(into: [String: Int]()) { counts, sighting in
                if sighting.1 { counts[sighting.0, default: 0] += 1 }
            }
        }
        #expect(firsts.count == ids.count)
        #expect(firsts.values.allSatisfy { $0 == 1 })

        let reopened = try DeliveryJournal(path: path)
        for id in ids {
            #expect(try await reopened.firstSighting(of: id) == false)
        }
        #expect(try await reopened.firstSighting(of: "new") == true)
    }
}
