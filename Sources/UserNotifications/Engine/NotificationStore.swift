package import Foundation
package import GRDB

/// The notification state of every app on the machine, in one SQLite file: pending requests with their next
/// fire date, delivered notifications, categories, settings and badges. Keyed by bundle id.
package final class NotificationStore: Sendable {
    /// What a program that keeps tables of its own in the same file adds (the device daemon: its inbox and the events
    /// waiting for apps): its migrations, run after the store's, and what it changes in the transaction that completes a
    /// remote notification, so that completing and its own bookkeeping commit together.
    package struct Owner: Sendable {
        package var migrations: @Sendable (inout DatabaseMigrator) -> Void
        package var remoteCompleted: @Sendable (_ apnsID: String, _ db: Database) throws -> Void

        package init(
            migrations: @escaping @Sendable (inout DatabaseMigrator) -> Void,
            remoteCompleted: @escaping @Sendable (_ apnsID: String, _ db: Database) throws -> Void
        ) {
            self.migrations = migrations
            self.remoteCompleted = remoteCompleted
        }
    }

    /// The file, for an ``Owner``'s own queries.
    package let database: DatabaseQueue
    private let owner: Owner?
    /// Where the engine over this store runs (``LocalEngine`` is isolated to it): its calls block this thread only.
    package let executor: StoreExecutor
    /// Set when the file was unreadable and moved aside: where it went.
    package let movedAside: String?

    /// Opens (creating) the store at `path`. A file that is not a readable SQLite database is moved aside to
    /// `PATH.corrupt-TIMESTAMP` — never deleted — and a fresh store is created; `movedAside` tells where.
    /// - Parameters:
    ///   - busyTimeout: How long a call waits while another process holds the file (then it fails: busy).
    ///   - owner: Tables of the caller's own in the same file (``Owner``).
    package init(path: String, busyTimeout: TimeInterval = 5, owner: Owner? = nil) throws {
        executor = StoreExecutor(label: "herald.notification-store")
        self.owner = owner
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true
        )
        do {
            database = try Self.open(path, busyTimeout: busyTimeout, owner: owner)
            movedAside = nil
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            let aside = path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
            try FileManager.default.moveItem(atPath: path, toPath: aside)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            database = try Self.open(path, busyTimeout: busyTimeout, owner: owner)
            movedAside = aside
        }
    }

    private static func open(_ path: String, busyTimeout: TimeInterval, owner: Owner?) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        // WAL with synchronous = NORMAL: a power cut may lose the last changes, never the file.
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let database = try DatabaseQueue(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE app (bundle_id TEXT PRIMARY KEY NOT NULL, settings TEXT, badge INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE pending (
                        bundle_id TEXT NOT NULL, identifier TEXT NOT NULL, request TEXT NOT NULL,
                        next_fire DOUBLE, added_at DOUBLE NOT NULL, is_location INTEGER NOT NULL, inside INTEGER,
                        PRIMARY KEY (bundle_id, identifier));
                    CREATE INDEX pending_next_fire ON pending (next_fire) WHERE next_fire IS NOT NULL;
                    CREATE TABLE delivered (
                        bundle_id TEXT NOT NULL, identifier TEXT NOT NULL, notification TEXT NOT NULL, delivered_at DOUBLE NOT NULL,
                        PRIMARY KEY (bundle_id, identifier));
                    CREATE TABLE category (
                        bundle_id TEXT NOT NULL, identifier TEXT NOT NULL, category TEXT NOT NULL,
                        PRIMARY KEY (bundle_id, identifier));
                    """)
        }
        migrator.registerMigration("v2") { db in
            // The machine's own state, one JSON value per key: "focus", "summary". Notifications held for the scheduled
            // summary wait in `held` until their release.
            try db.execute(
                sql: """
                    CREATE TABLE device_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE held (
                        bundle_id TEXT NOT NULL, identifier TEXT NOT NULL, notification TEXT NOT NULL, release_at DOUBLE NOT NULL,
                        PRIMARY KEY (bundle_id, identifier));
                    CREATE INDEX held_release ON held (release_at);
                    """)
        }
        owner?.migrations(&migrator)
        try migrator.migrate(database)
        return database
    }

    /// Runs `body` on the store's queue (the engine's), so that async code waits for SQLite without blocking one of
    /// Swift's cooperative threads.
    package func perform<Value: Sendable>(_ body: @escaping @Sendable (NotificationStore) throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            executor.run { continuation.resume(with: Result { try body(self) }) }
        }
    }

    /// Copies what the write-ahead log holds into the database file, as far as readers allow (a passive checkpoint).
    package func checkpoint() throws {
        try database.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
    }

    /// A transaction whose commit does not checkpoint (other commits do, once the log passes 1,000 pages): for the
    /// writes of a firing batch, which a checkpoint would make late. The scheduler calls ``checkpoint()`` after them.
    private func writeWithoutCheckpoint<Value>(_ updates: (Database) throws -> Value) throws -> Value {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            defer { try? db.execute(sql: "PRAGMA wal_autocheckpoint = 1000") }
            var value: Value?
            try db.inTransaction {
                value = try updates(db)
                return .commit
            }
            guard let value else { preconditionFailure("a committed transaction has run its updates") }
            return value
        }
    }

    // MARK: Settings and badge

    package func settings(of bundleID: String) throws -> SettingsRecord? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT settings FROM app WHERE bundle_id = ?", arguments: [bundleID])
                .map { try Self.decode(SettingsRecord.self, $0) }
        }
    }

    /// The settings of several apps in one read; apps that never asked for authorization are missing.
    package func settings(of bundleIDs: Set<String>) throws -> [String: SettingsRecord] {
        let ids = Array(bundleIDs)
        return try database.read { db in
            var settings: [String: SettingsRecord] = [:]
            var decoded: [String: SettingsRecord] = [:]  // by stored text: most apps' settings are alike
            for start in stride(from: 0, to: ids.count, by: 500) {
                let part = Array(ids[start..<min(start + 500, ids.count)])
                let rows = try Row.fetchAll(
                    db, sql: "SELECT bundle_id, settings FROM app WHERE bundle_id IN (\(databaseQuestionMarks(count: part.count)))",
                    arguments: StatementArguments(part)
                )
                for row in rows {
                    guard let text = row["settings"] as String? else { continue }
                    let record = try decoded[text] ?? Self.decode(SettingsRecord.self, text)
                    decoded[text] = record
                    settings[row["bundle_id"]] = record
                }
            }
            return settings
        }
    }

    package func setSettings(_ settings: SettingsRecord, of bundleID: String) throws {
        let text = try Self.encode(settings)
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO app (bundle_id, settings) VALUES (?, ?)
                    ON CONFLICT (bundle_id) DO UPDATE SET settings = excluded.settings
                    """, arguments: [bundleID, text])
        }
    }

    package func badge(of bundleID: String) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT badge FROM app WHERE bundle_id = ?", arguments: [bundleID]) ?? 0
        }
    }

    package func setBadge(_ badge: Int, of bundleID: String) throws {
        try database.write { db in try Self.setBadge(badge, of: bundleID, in: db) }
    }

    private static func setBadge(_ badge: Int, of bundleID: String, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO app (bundle_id, badge) VALUES (?, ?)
                ON CONFLICT (bundle_id) DO UPDATE SET badge = excluded.badge
                """, arguments: [bundleID, badge])
    }

    /// Every app that has asked for authorization, with its settings.
    package func apps() throws -> [(bundleID: String, settings: SettingsRecord?)] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT bundle_id, settings FROM app ORDER BY bundle_id").map { row in
                let text: String? = row["settings"]
                return (row["bundle_id"], try text.map { try Self.decode(SettingsRecord.self, $0) })
            }
        }
    }

    // MARK: The machine's state

    /// The Focus, as last set (off when never set).
    package func focus() throws -> Focus {
        try state("focus") ?? Focus()
    }

    package func setFocus(_ focus: Focus) throws {
        try setState("focus", focus)
    }

    /// The scheduled summary, as last set (off when never set).
    package func summary() throws -> ScheduledSummary {
        try state("summary") ?? ScheduledSummary()
    }

    package func setSummary(_ summary: ScheduledSummary) throws {
        try setState("summary", summary)
    }

    private func state<Value: Decodable>(_ key: String) throws -> Value? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM device_state WHERE key = ?", arguments: [key])
                .map { try Self.decode(Value.self, $0) }
        }
    }

    private func setState(_ key: String, _ value: some Encodable) throws {
        let text = try Self.encode(value)
        try database.write { db in
            try db.execute(
                sql: "INSERT INTO device_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [key, text])
        }
    }

    // MARK: Held for the summary

    /// The earliest release of a held notification.
    package func earliestRelease() throws -> Date? {
        try database.read { db in
            try Double.fetchOne(db, sql: "SELECT MIN(release_at) FROM held").map(Date.init(timeIntervalSince1970:))
        }
    }

    /// How many notifications wait for the summary.
    package func heldCount() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM held") ?? 0 }
    }

    /// A notification released from the summary into the delivered list, and the delivered one it replaced.
    package struct Released: Sendable {
        package var bundleID: String
        package var notification: NotificationRecord
        package var replaced: NotificationRecord?
    }

    /// Moves the held notifications due by `date` (all of them when nil) into the delivered list, each replacing a
    /// delivered one with its identifier, in one transaction; in the order they were held.
    package func releaseHeld(dueBy date: Date?) throws -> [Released] {
        try database.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT bundle_id, identifier, notification FROM held WHERE release_at <= ? ORDER BY rowid",
                arguments: [date?.timeIntervalSince1970 ?? .greatestFiniteMagnitude])
            var released: [Released] = []
            for row in rows {
                let (bundleID, identifier, text): (String, String, String) = (row["bundle_id"], row["identifier"], row["notification"])
                let key: StatementArguments = [bundleID, identifier]
                let notification = try Self.decode(NotificationRecord.self, text)
                let replaced = try String.fetchOne(
                    db, sql: "SELECT notification FROM delivered WHERE bundle_id = ? AND identifier = ?", arguments: key
                ).map { try Self.decode(NotificationRecord.self, $0) }
                try db.execute(sql: "DELETE FROM delivered WHERE bundle_id = ? AND identifier = ?", arguments: key)
                try db.execute(
                    sql: "INSERT INTO delivered (bundle_id, identifier, notification, delivered_at) VALUES (?, ?, ?, ?)",
                    arguments: key + [text, notification.date.timeIntervalSince1970])
                try db.execute(sql: "DELETE FROM held WHERE bundle_id = ? AND identifier = ?", arguments: key)
                released.append(Released(bundleID: bundleID, notification: notification, replaced: replaced))
            }
            return released
        }
    }

    // MARK: Pending requests

    /// A pending request and when it fires next (nil: on a location event only).
    package struct Pending: Sendable, Hashable {
        package var request: RequestRecord
        package var nextFire: Date?
        package var addedAt: Date
        /// For location triggers: whether the last known location was inside the region.
        package var inside: Bool?

        package var isLocation: Bool {
            if case .location? = request.trigger { true } else { false }
        }

        package init(request: RequestRecord, nextFire: Date?, addedAt: Date, inside: Bool? = nil) {
            self.request = request
            self.nextFire = nextFire
            self.addedAt = addedAt
            self.inside = inside
        }
    }

    package func pending(of bundleID: String) throws -> [Pending] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT request, next_fire, added_at, inside FROM pending WHERE bundle_id = ? ORDER BY added_at, identifier
                    """, arguments: [bundleID]
            ).map(Self.pending(from:))
        }
    }

    /// Pending requests due at or before `date`, of one app or (`app` nil) of every app.
    package func due(at date: Date, app: String?) throws -> [(bundleID: String, pending: Pending)] {
        let (filter, arguments) = Self.only(app)
        return try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT bundle_id, request, next_fire, added_at, inside FROM pending
                    WHERE next_fire IS NOT NULL AND next_fire <= ? \(filter) ORDER BY next_fire
                    """, arguments: [date.timeIntervalSince1970] + arguments
            ).map { ($0["bundle_id"], try Self.pending(from: $0)) }
        }
    }

    /// The next time something is due, in one read: a pending request's fire date (of one app or every app) or the
    /// release of a notification held for the summary.
    package func nextDue(app: String?) throws -> Date? {
        let (filter, arguments) = Self.only(app)
        return try database.read { db in
            try Double.fetchOne(
                db,
                sql: """
                    SELECT MIN(due) FROM (SELECT MIN(next_fire) AS due FROM pending WHERE next_fire IS NOT NULL \(filter)
                    UNION ALL SELECT MIN(release_at) FROM held)
                    """, arguments: arguments
            ).map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Pending calendar requests of one app (or every app).
    package func calendarRequests(app: String?) throws -> [(bundleID: String, pending: Pending)] {
        let (filter, arguments) = Self.only(app)
        return try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT bundle_id, request, next_fire, added_at, inside FROM pending WHERE NOT is_location \(filter)",
                arguments: arguments
            )
            .map { ($0["bundle_id"], try Self.pending(from: $0)) }
            .filter { if case .calendar? = $0.1.request.trigger { true } else { false } }
        }
    }

    /// Pending location requests of one app (or every app).
    package func locationRequests(app: String?) throws -> [(bundleID: String, pending: Pending)] {
        let (filter, arguments) = Self.only(app)
        return try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT bundle_id, request, next_fire, added_at, inside FROM pending WHERE is_location \(filter)",
                arguments: arguments
            ).map { ($0["bundle_id"], try Self.pending(from: $0)) }
        }
    }

    /// `AND bundle_id = ?` for one app, nothing for every app.
    private static func only(_ app: String?) -> (String, StatementArguments) {
        guard let app else { return ("", []) }
        return ("AND bundle_id = ?", [app])
    }

    /// One pending request.
    package func pendingRequest(of bundleID: String, identifier: String) throws -> Pending? {
        try database.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT request, next_fire, added_at, inside FROM pending WHERE bundle_id = ? AND identifier = ?
                    """, arguments: [bundleID, identifier]
            ).map(Self.pending(from:))
        }
    }

    /// Adds or replaces (same identifier) one pending request.
    package func savePending(_ item: Pending, of bundleID: String) throws {
        let text = try Self.encode(item.request)
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO pending (bundle_id, identifier, request, next_fire, added_at, is_location, inside)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    bundleID, item.request.identifier, text, item.nextFire?.timeIntervalSince1970,
                    item.addedAt.timeIntervalSince1970, item.isLocation, item.inside,
                ])
        }
    }

    /// When each of the app's pending requests fires, without decoding them: for the 64 limit.
    package func pendingSchedule(of bundleID: String) throws -> [(identifier: String, nextFire: Date?, addedAt: Date)] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, next_fire, added_at FROM pending WHERE bundle_id = ?", arguments: [bundleID]).map { row in
                let fire: Double? = row["next_fire"]
                return (row["identifier"], fire.map(Date.init(timeIntervalSince1970:)), Date(timeIntervalSince1970: row["added_at"]))
            }
        }
    }

    /// Sets when a pending request fires next, and (location) whether the device is inside its region.
    package func updatePending(of bundleID: String, identifier: String, nextFire: Date?, inside: Bool?) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE pending SET next_fire = ?, inside = ? WHERE bundle_id = ? AND identifier = ?",
                arguments: [nextFire?.timeIntervalSince1970, inside, bundleID, identifier])
        }
    }

    /// A request that fired: what happens to its row.
    package struct Settlement: Sendable {
        package var bundleID: String
        package var identifier: String
        /// The fire date it was read with; a row that no longer has it was replaced or removed meanwhile.
        package var firedDate: Date
        /// nil: one-shot, the row goes.
        package var nextFire: Date?

        package init(bundleID: String, identifier: String, firedDate: Date, nextFire: Date?) {
            self.bundleID = bundleID
            self.identifier = identifier
            self.firedDate = firedDate
            self.nextFire = nextFire
        }
    }

    /// Settles fired requests in one transaction (one-shot rows go, repeating ones get their next date) and
    /// returns which were still pending as read.
    package func settle(_ settlements: [Settlement]) throws -> [Bool] {
        try writeWithoutCheckpoint { db in
            let remove = try db.cachedStatement(sql: "DELETE FROM pending WHERE bundle_id = ? AND identifier = ? AND next_fire = ?")
            let update = try db.cachedStatement(sql: "UPDATE pending SET next_fire = ? WHERE bundle_id = ? AND identifier = ? AND next_fire = ?")
            return try settlements.map { item in
                let fired = item.firedDate.timeIntervalSince1970
                if let next = item.nextFire {
                    try update.execute(arguments: [next.timeIntervalSince1970, item.bundleID, item.identifier, fired])
                } else {
                    try remove.execute(arguments: [item.bundleID, item.identifier, fired])
                }
                return db.changesCount > 0
            }
        }
    }

    /// Removes pending requests (all of the app's when `identifiers` is nil); returns what was removed.
    @discardableResult
    package func removePending(of bundleID: String, identifiers: [String]?) throws -> [Pending] {
        try database.write { db in
            let filter = identifiers.map { "AND identifier IN (\(databaseQuestionMarks(count: $0.count)))" } ?? ""
            let arguments = StatementArguments([bundleID] + (identifiers ?? []))
            let removed = try Row.fetchAll(
                db, sql: "SELECT request, next_fire, added_at, inside FROM pending WHERE bundle_id = ? \(filter)",
                arguments: arguments
            ).map(Self.pending(from:))
            try db.execute(sql: "DELETE FROM pending WHERE bundle_id = ? \(filter)", arguments: arguments)
            return removed
        }
    }

    // MARK: Delivered notifications

    /// The app's delivered notifications, newest first.
    package func delivered(of bundleID: String) throws -> [NotificationRecord] {
        try database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT notification FROM delivered WHERE bundle_id = ? ORDER BY delivered_at DESC, rowid DESC
                    """, arguments: [bundleID]
            ).map { try Self.decode(NotificationRecord.self, $0) }
        }
    }

    /// What completing one fired notification changes: the delivered list (`deliver`: added, replacing one with the
    /// same identifier), the app's badge, and for a remote notification (`remoteID`, its apns-id) what the store's
    /// ``Owner`` keeps for it.
    package struct Completion: Sendable {
        package var bundleID: String
        package var deliver: NotificationRecord?
        /// `deliver` waits for the scheduled summary until then instead (replacing one waiting with its identifier).
        package var holdUntil: Date?
        package var remoteID: String?
        package var badge: Int?
    }

    /// Applies `completions` in order, in one transaction; returns, for each, the delivered notification it replaced.
    package func complete(_ completions: [Completion]) throws -> [NotificationRecord?] {
        let texts = try completions.map { try $0.deliver.map(Self.encode) }
        return try writeWithoutCheckpoint { db in
            let find = try db.cachedStatement(sql: "SELECT notification FROM delivered WHERE bundle_id = ? AND identifier = ?")
            let remove = try db.cachedStatement(sql: "DELETE FROM delivered WHERE bundle_id = ? AND identifier = ?")
            let insert = try db.cachedStatement(
                sql: "INSERT INTO delivered (bundle_id, identifier, notification, delivered_at) VALUES (?, ?, ?, ?)"
            )
            let findHeld = try db.cachedStatement(sql: "SELECT notification FROM held WHERE bundle_id = ? AND identifier = ?")
            let removeHeld = try db.cachedStatement(sql: "DELETE FROM held WHERE bundle_id = ? AND identifier = ?")
            let hold = try db.cachedStatement(
                sql: "INSERT INTO held (bundle_id, identifier, notification, release_at) VALUES (?, ?, ?, ?)")
            var replaced: [NotificationRecord?] = []
            for (completion, text) in zip(completions, texts) {
                if let apnsID = completion.remoteID { try owner?.remoteCompleted(apnsID, db) }
                if let notification = completion.deliver, let text {
                    // One with the same identifier goes, whether delivered or waiting for the summary.
                    let key: StatementArguments = [completion.bundleID, notification.request.identifier]
                    let old = try String.fetchOne(find, arguments: key) ?? String.fetchOne(findHeld, arguments: key)
                    replaced.append(try old.map { try Self.decode(NotificationRecord.self, $0) })
                    try remove.execute(arguments: key)
                    try removeHeld.execute(arguments: key)
                    if let release = completion.holdUntil {
                        try hold.execute(arguments: key + [text, release.timeIntervalSince1970])
                    } else {
                        try insert.execute(arguments: key + [text, notification.date.timeIntervalSince1970])
                    }
                } else {
                    replaced.append(nil)
                }
                if let badge = completion.badge {
                    try Self.setBadge(badge, of: completion.bundleID, in: db)
                }
            }
            return replaced
        }
    }

    /// Removes delivered notifications (all of the app's when `identifiers` is nil); returns what was removed.
    @discardableResult
    package func removeDelivered(of bundleID: String, identifiers: [String]?) throws -> [NotificationRecord] {
        try database.write { db in
            let removed: [NotificationRecord]
            if let identifiers {
                let marks = databaseQuestionMarks(count: identifiers.count)
                let arguments = StatementArguments([bundleID] + identifiers)
                removed = try String.fetchAll(
                    db, sql: "SELECT notification FROM delivered WHERE bundle_id = ? AND identifier IN (\(marks))",
                    arguments: arguments
                ).map { try Self.decode(NotificationRecord.self, $0) }
                try db.execute(sql: "DELETE FROM delivered WHERE bundle_id = ? AND identifier IN (\(marks))", arguments: arguments)
            } else {
                removed = try String.fetchAll(db, sql: "SELECT notification FROM delivered WHERE bundle_id = ?", arguments: [bundleID])
                    .map { try Self.decode(NotificationRecord.self, $0) }
                try db.execute(sql: "DELETE FROM delivered WHERE bundle_id = ?", arguments: [bundleID])
            }
            return removed
        }
    }

    // MARK: Categories

    package func categories(of bundleID: String) throws -> [CategoryRecord] {
        try database.read { db in
            try String.fetchAll(db, sql: "SELECT category FROM category WHERE bundle_id = ? ORDER BY identifier", arguments: [bundleID])
                .map { try Self.decode(CategoryRecord.self, $0) }
        }
    }

    /// Replaces the app's categories, as `setNotificationCategories(_:)` does.
    package func setCategories(_ categories: [CategoryRecord], of bundleID: String) throws {
        let rows = try categories.map { ($0.identifier, try Self.encode($0)) }
        try database.write { db in
            try db.execute(sql: "DELETE FROM category WHERE bundle_id = ?", arguments: [bundleID])
            for (identifier, text) in rows {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO category (bundle_id, identifier, category) VALUES (?, ?, ?)",
                    arguments: [bundleID, identifier, text])
            }
        }
    }

    // MARK: Coding

    private static func pending(from row: Row) throws -> Pending {
        let fire: Double? = row["next_fire"]
        let inside: Bool? = row["inside"]
        return Pending(
            request: try decode(RequestRecord.self, row["request"]), nextFire: fire.map(Date.init(timeIntervalSince1970:)),
            addedAt: Date(timeIntervalSince1970: row["added_at"]), inside: inside
        )
    }

    package static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    package static func decode<Value: Decodable>(_ type: Value.Type, _ text: String) throws -> Value {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(type, from: Data(text.utf8))
    }
}
