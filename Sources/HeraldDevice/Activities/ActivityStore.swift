import Foundation
import GRDB

/// The daemon's Live Activities and the apps' push-to-start tokens, in `DATA_DIR/activities.sqlite`: what survives a
/// restart of the daemon, so an app started later still finds its activities and the link resumes what it owed.
final class ActivityStore: Sendable {
    private let queue: DatabaseQueue

    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(queue)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: activities") { db in
            try db.execute(
                sql: """
                    CREATE TABLE activity (
                        id TEXT PRIMARY KEY NOT NULL,
                        bundle_id TEXT NOT NULL,
                        attributes_type TEXT NOT NULL,
                        attributes BLOB NOT NULL,
                        state BLOB NOT NULL,
                        stale_date DOUBLE,
                        relevance_score DOUBLE,
                        phase TEXT NOT NULL,
                        origin TEXT NOT NULL,
                        wants_token INTEGER NOT NULL,
                        push_token TEXT,
                        token_retired INTEGER NOT NULL DEFAULT 0,
                        channel_id TEXT,
                        created_at DOUBLE NOT NULL,
                        ended_at DOUBLE,
                        dismiss_at DOUBLE,
                        last_timestamp DOUBLE NOT NULL,
                        stale_reported INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX activity_token ON activity(push_token) WHERE push_token IS NOT NULL;
                    CREATE TABLE push_to_start (
                        bundle_id TEXT PRIMARY KEY NOT NULL,
                        token TEXT NOT NULL
                    );
                    CREATE TABLE channel (
                        channel_id TEXT PRIMARY KEY NOT NULL,
                        bundle_id TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v2: priority budget") { db in
            try db.execute(
                sql: """
                    ALTER TABLE activity ADD COLUMN budget_used INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE activity ADD COLUMN budget_window_start DOUBLE;
                    """)
        }
        return migrator
    }

    /// Runs `body` in one transaction.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.write(body)
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.read(body)
    }

    // MARK: Rows

    static func save(_ activity: LiveActivity, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO activity (id, bundle_id, attributes_type, attributes, state, stale_date, relevance_score, phase,
                    origin, wants_token, push_token, token_retired, channel_id, created_at, ended_at, dismiss_at, last_timestamp,
                    stale_reported, budget_used, budget_window_start)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                activity.id, activity.bundleID, activity.attributesType, activity.attributes, activity.state,
                activity.staleDate?.timeIntervalSince1970, activity.relevanceScore, activity.phase.rawValue, activity.origin.rawValue,
                activity.wantsToken, activity.pushToken, activity.tokenRetired, activity.channelID, activity.createdAt.timeIntervalSince1970,
                activity.endedAt?.timeIntervalSince1970, activity.dismissAt?.timeIntervalSince1970, activity.lastTimestamp,
                activity.staleReported, activity.budgetUsed, activity.budgetWindowStart?.timeIntervalSince1970,
            ])
    }

    static func activities(_ db: Database, where condition: String = "1", _ arguments: StatementArguments = []) throws -> [LiveActivity] {
        try Row.fetchAll(db, sql: "SELECT * FROM activity WHERE \(condition) ORDER BY created_at, id", arguments: arguments).map { row in
            let date = { (column: String) in (row[column] as Double?).map(Date.init(timeIntervalSince1970:)) }
            guard let phase = LiveActivity.Phase(rawValue: row["phase"]), let origin = LiveActivity.Origin(rawValue: row["origin"]) else {
                throw ActivityPayloadError("activity \(row["id"] as String) has an unknown phase or origin")
            }
            return LiveActivity(
                id: row["id"], bundleID: row["bundle_id"], attributesType: row["attributes_type"], attributes: row["attributes"],
                state: row["state"], staleDate: date("stale_date"), relevanceScore: row["relevance_score"], phase: phase, origin: origin,
                wantsToken: row["wants_token"], pushToken: row["push_token"], tokenRetired: row["token_retired"], channelID: row["channel_id"],
                createdAt: Date(timeIntervalSince1970: row["created_at"]), endedAt: date("ended_at"), dismissAt: date("dismiss_at"),
                lastTimestamp: row["last_timestamp"], staleReported: row["stale_reported"], budgetUsed: row["budget_used"],
                budgetWindowStart: date("budget_window_start"))
        }
    }

    static func pushToStartToken(of bundleID: String, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT token FROM push_to_start WHERE bundle_id = ?", arguments: [bundleID])
    }

    static func setPushToStartToken(_ token: String?, of bundleID: String, _ db: Database) throws {
        if let token {
            try db.execute(sql: "INSERT OR REPLACE INTO push_to_start (bundle_id, token) VALUES (?, ?)", arguments: [bundleID, token])
        } else {
            try db.execute(sql: "DELETE FROM push_to_start WHERE bundle_id = ?", arguments: [bundleID])
        }
    }

    /// The channels the gateway has this device subscribed to.
    static func subscribedChannels(_ db: Database) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT channel_id, bundle_id FROM channel").map { ($0["channel_id"], $0["bundle_id"]) })
    }

    static func setSubscribed(_ channelID: String, bundleID: String?, _ db: Database) throws {
        if let bundleID {
            try db.execute(sql: "INSERT OR REPLACE INTO channel (channel_id, bundle_id) VALUES (?, ?)", arguments: [channelID, bundleID])
        } else {
            try db.execute(sql: "DELETE FROM channel WHERE channel_id = ?", arguments: [channelID])
        }
    }
}
