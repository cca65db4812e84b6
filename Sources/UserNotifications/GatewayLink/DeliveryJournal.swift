package import Foundation
import GRDB

/// What the device remembers between runs: the apns-ids it has presented, so a notification sent
/// again after a dropped link or a gateway restart is shown once. (Its tokens live in the gateway,
/// keyed by the device key.)
package final class DeliveryJournal: Sendable {
    private let database: DatabaseQueue
    /// Seen ids kept; older ones are forgotten (the gateway never resends something that old).
    private let retention: TimeInterval = 30 * 24 * 3600

    package init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        // A device that crashes may show a notification twice at worst if the journal lost its last
        // commit to a power cut; synchronous = NORMAL keeps each record cheap.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        database = try DatabaseQueue(path: path, configuration: configuration)
        // journal_mode cannot change inside a transaction, and on a reopened file it would have to.
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS seen (apns_id TEXT PRIMARY KEY NOT NULL, seen_at DOUBLE NOT NULL)
                """)
            try db.execute(sql: "DELETE FROM seen WHERE seen_at < ?", arguments: [Date().timeIntervalSince1970 - retention])
        }
    }

    /// Records `apnsID` as presented; false when it already was (a duplicate to drop).
    package func firstSighting(of apnsID: String, at date: Date = Date()) throws -> Bool {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO seen (apns_id, seen_at) VALUES (?, ?)",
                arguments: [apnsID, date.timeIntervalSince1970]
            )
            return db.changesCount > 0
        }
    }
}
