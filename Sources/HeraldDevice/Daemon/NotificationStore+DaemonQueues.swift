package import Foundation
import GRDB
package import UserNotifications

/// The device daemon's durable queues, in the same file as the notifications, so a daemon restart loses
/// nothing: the inbox of remote notifications received but not yet presented, and the events (responses,
/// background pushes) waiting for an app to run. The daemon opens the file with ``daemonQueues`` as its owner: these
/// tables are created with the store's, and presenting a remote notification closes its inbox entry in the same
/// transaction that lists it.
extension NotificationStore.Owner {
    /// The daemon's tables and its part in completing a remote notification.
    package static let daemonQueues = Self(
        migrations: { NotificationStore.registerDaemonTables(in: &$0) },
        remoteCompleted: { apnsID, db in try NotificationStore.closeInbox(apnsID, in: db) })
}

extension NotificationStore {
    /// A remote notification as received from the gateway.
    package struct InboxItem: Codable, Sendable, Hashable {
        package var apnsID: String
        package var bundleID: String
        /// The request identifier on the device: the collapse id, else the apns-id.
        package var identifier: String
        /// The provider's JSON payload, unchanged.
        package var payload: Data
        package var receivedAt: Date

        package init(apnsID: String, bundleID: String, identifier: String, payload: Data, receivedAt: Date) {
            self.apnsID = apnsID
            self.bundleID = bundleID
            self.identifier = identifier
            self.payload = payload
            self.receivedAt = receivedAt
        }
    }

    /// An app event waiting in the queue, with the id that removes it once the app has it.
    package struct QueuedEvent: Sendable, Hashable {
        package var id: Int64
        package var event: AppEventRecord
    }

    fileprivate static func registerDaemonTables(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-daemon") { db in
            try db.execute(
                sql: """
                    CREATE TABLE inbox (
                        apns_id TEXT PRIMARY KEY NOT NULL, item TEXT, received_at DOUBLE NOT NULL, done INTEGER NOT NULL DEFAULT 0);
                    CREATE INDEX inbox_open ON inbox (received_at) WHERE done = 0;
                    CREATE TABLE app_event (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, bundle_id TEXT NOT NULL, event TEXT NOT NULL, created_at DOUBLE NOT NULL);
                    CREATE INDEX app_event_bundle ON app_event (bundle_id, id);
                    """)
        }
    }

    // MARK: Inbox

    /// Records a received notification before the gateway is told; false when its apns-id was received before
    /// (a resend after a dropped link), which is then dropped. Seen ids are remembered for 30 days.
    package func receive(_ item: InboxItem) throws -> Bool {
        let text = try Self.encode(item)
        return try database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO inbox (apns_id, item, received_at) VALUES (?, ?, ?)",
                arguments: [item.apnsID, text, item.receivedAt.timeIntervalSince1970])
            return db.changesCount > 0
        }
    }

    /// Received notifications not yet presented (or dropped), oldest first.
    package func openInbox() throws -> [InboxItem] {
        try database.read { db in
            try String.fetchAll(db, sql: "SELECT item FROM inbox WHERE done = 0 ORDER BY received_at, rowid")
                .map { try Self.decode(InboxItem.self, $0) }
        }
    }

    /// Marks a received notification as handled; its id stays, so a resend is still recognized.
    package func closeInbox(_ apnsID: String) throws {
        try database.write { db in try Self.closeInbox(apnsID, in: db) }
    }

    fileprivate static func closeInbox(_ apnsID: String, in db: Database) throws {
        try db.execute(sql: "UPDATE inbox SET done = 1, item = NULL WHERE apns_id = ?", arguments: [apnsID])
    }

    /// Forgets handled ids older than `date`.
    package func pruneInbox(before date: Date) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM inbox WHERE done = 1 AND received_at < ?", arguments: [date.timeIntervalSince1970])
        }
    }

    // MARK: App events

    /// Queues an event for an app; it stays until ``removeEvent(_:)`` (the app acknowledged it).
    @discardableResult
    package func queue(_ event: AppEventRecord, for bundleID: String, at date: Date = Date()) throws -> Int64 {
        let text = try Self.encode(event)
        return try database.write { db in
            try db.execute(
                sql: "INSERT INTO app_event (bundle_id, event, created_at) VALUES (?, ?, ?)",
                arguments: [bundleID, text, date.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
    }

    /// The app's queued events, oldest first.
    package func queuedEvents(for bundleID: String) throws -> [QueuedEvent] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, event FROM app_event WHERE bundle_id = ? ORDER BY id", arguments: [bundleID])
                .map { QueuedEvent(id: $0["id"], event: try Self.decode(AppEventRecord.self, $0["event"])) }
        }
    }

    package func removeEvent(_ id: Int64) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM app_event WHERE id = ?", arguments: [id]) }
    }

    /// Apps with queued events.
    package func appsWithQueuedEvents() throws -> [String] {
        try database.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT bundle_id FROM app_event ORDER BY bundle_id") }
    }
}
