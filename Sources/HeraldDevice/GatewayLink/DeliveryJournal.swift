package import Foundation
import GRDB
import Synchronization

/// What the device remembers between runs: the apns-ids it has presented, so a notification sent
/// again after a dropped link or a gateway restart is shown once. (Its tokens live in the gateway,
/// keyed by the device key.)
///
/// Sightings that arrive while a transaction is being written wait for the next one, so a busy link (or
/// many links sharing one journal) costs one transaction per batch rather than one per notification, and
/// no caller's thread blocks on SQLite.
package final class DeliveryJournal: Sendable {
    private struct Sighting {
        var apnsID: String
        var date: Date
        var continuation: CheckedContinuation<Bool, any Error>
    }

    private struct Queue {
        var waiting: [Sighting] = []
        var writing = false
    }

    private let database: DatabaseQueue
    private let queue = Mutex(Queue())
    /// Seen ids kept; older ones are forgotten (the gateway never resends something that old).
    private let retention: TimeInterval = 30 * 24 * 3600

    package init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        // A device that crashes may show a notification twice at worst if the journal lost its last
        // commit to a power cut; synchronous = NORMAL keeps each record cheap.
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        database = try DatabaseQueue(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // IF NOT EXISTS: journals written before the migrator have the table and no migration record.
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS seen (apns_id TEXT PRIMARY KEY NOT NULL, seen_at DOUBLE NOT NULL)")
        }
        try migrator.migrate(database)
        try database.write { db in
            try db.execute(sql: "DELETE FROM seen WHERE seen_at < ?", arguments: [Date().timeIntervalSince1970 - retention])
        }
    }

    /// Records `apnsID` as presented once it is committed; false when it already was (a duplicate to drop).
    package func firstSighting(of apnsID: String, at date: Date = Date()) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            let startWriting = queue.withLock { queue in
                queue.waiting.append(Sighting(apnsID: apnsID, date: date, continuation: continuation))
                defer { queue.writing = true }
                return !queue.writing
            }
            if startWriting {
                Task { await self.writeWaiting() }
            }
        }
    }

    /// Writes what is waiting, one transaction at a time, until nothing is.
    private func writeWaiting() async {
        while true {
            let batch: [Sighting] = queue.withLock { queue in
                defer { queue.waiting = [] }
                if queue.waiting.isEmpty { queue.writing = false }
                return queue.waiting
            }
            guard !batch.isEmpty else { return }
            let entries = batch.map { ($0.apnsID, $0.date.timeIntervalSince1970) }
            do {
                let first = try await database.write { db in
                    try entries.map { apnsID, seenAt in
                        try db.execute(sql: "INSERT OR IGNORE INTO seen (apns_id, seen_at) VALUES (?, ?)", arguments: [apnsID, seenAt])
                        return db.changesCount > 0
                    }
                }
                for (sighting, isFirst) in zip(batch, first) { sighting.continuation.resume(returning: isFirst) }
            } catch {
                for sighting in batch { sighting.continuation.resume(throwing: error) }
            }
        }
    }
}
