public import Foundation
import GRDB
public import HeraldWire

/// The default store: one SQLite file in WAL mode, shared safely by the gateway and CLI processes.
///
/// Every write is a transaction committed with `synchronous = FULL`, so what a call returned from
/// survives a crash of the process or the machine.
public final class SQLiteStore: Store {
    private let pool: DatabasePool
    /// A connection of its own for WAL checkpoints, so they never run inside a commit.
    private let checkpointer: DatabaseQueue

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// - Throws: ``StoreError`` `.unavailable` when the file cannot be opened or migrated.
    public init(path: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA cache_size = -65536")  // 64 MiB: keep index pages in memory
            // Commits never checkpoint; maintain() does, on its own connection.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            var checkpointConfiguration = Configuration()
            checkpointConfiguration.busyMode = .timeout(10)
            checkpointer = try DatabaseQueue(path: path, configuration: checkpointConfiguration)
        } catch {
            throw StoreError(.unavailable, "cannot open the SQLite store at \(path)", underlying: error)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE provider_key (
                    team_id TEXT NOT NULL,
                    key_id TEXT NOT NULL,
                    topics TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    public_key_pem TEXT NOT NULL,
                    created_at DOUBLE NOT NULL,
                    revoked_at DOUBLE,
                    PRIMARY KEY (team_id, key_id)
                );
                CREATE TABLE device (
                    token TEXT PRIMARY KEY NOT NULL,
                    topic TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    created_at DOUBLE NOT NULL,
                    retired_at DOUBLE,
                    retirement TEXT
                );
                CREATE TABLE notification (
                    id INTEGER PRIMARY KEY,
                    apns_id BLOB NOT NULL,
                    unique_id BLOB NOT NULL,
                    device_token TEXT NOT NULL,
                    bundle_id TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    push_type TEXT NOT NULL,
                    priority INTEGER NOT NULL,
                    expiration INTEGER,
                    collapse_id TEXT,
                    payload BLOB NOT NULL,
                    received_at DOUBLE NOT NULL
                );
                CREATE INDEX notification_apns_id ON notification(apns_id);
                CREATE UNIQUE INDEX notification_unique_id ON notification(unique_id);
                """)
        }
        return migrator
    }

    private func write<T: Sendable>(_ what: String, _ body: @Sendable @escaping (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw StoreError(.unavailable, "cannot \(what)", underlying: error)
        }
    }

    private func read<T: Sendable>(_ what: String, _ body: @Sendable @escaping (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unavailable, "cannot \(what)", underlying: error)
        }
    }

    public func saveKey(_ key: ProviderKey) async throws(StoreError) {
        try await write("save key \(key.keyID)") { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO provider_key
                    (team_id, key_id, topics, environment, public_key_pem, created_at, revoked_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    key.teamID, key.keyID, key.topics.joined(separator: " "), key.environment.rawValue,
                    key.publicKeyPEM, key.createdAt.timeIntervalSince1970, key.revokedAt?.timeIntervalSince1970,
                ]
            )
        }
    }

    public func key(teamID: String, keyID: String) async throws(StoreError) -> ProviderKey? {
        try await read("read key \(keyID)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM provider_key WHERE team_id = ? AND key_id = ?", arguments: [teamID, keyID])
                .map(Self.key(from:))
        }
    }

    public func keys() async throws(StoreError) -> [ProviderKey] {
        try await read("read keys") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM provider_key ORDER BY team_id, key_id").map(Self.key(from:))
        }
    }

    private static func key(from row: Row) throws -> ProviderKey {
        guard let environment = APNsEnvironment(rawValue: row["environment"]) else {
            throw StoreError(.corrupt, "key \(row["key_id"] as String) has an unknown environment")
        }
        let topics: String = row["topics"]
        return ProviderKey(
            teamID: row["team_id"],
            keyID: row["key_id"],
            topics: topics.split(separator: " ").map(String.init),
            environment: environment,
            publicKeyPEM: row["public_key_pem"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        )
    }

    public func saveDevice(_ device: DeviceRecord) async throws(StoreError) {
        try await write("save a device") { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO device (token, topic, environment, created_at, retired_at, retirement)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    device.token.hex, device.topic, device.environment.rawValue, device.createdAt.timeIntervalSince1970,
                    device.retiredAt?.timeIntervalSince1970, device.retirement?.rawValue,
                ]
            )
        }
    }

    public func device(_ token: DeviceToken) async throws(StoreError) -> DeviceRecord? {
        try await read("read a device") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM device WHERE token = ?", arguments: [token.hex]).map(Self.device(from:))
        }
    }

    private static func device(from row: Row) throws -> DeviceRecord {
        guard let token = DeviceToken(hex: row["token"] as String),
              let environment = APNsEnvironment(rawValue: row["environment"])
        else { throw StoreError(.corrupt, "a device row cannot be read") }
        return DeviceRecord(
            token: token,
            topic: row["topic"],
            environment: environment,
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            retiredAt: (row["retired_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            retirement: (row["retirement"] as String?).flatMap(DeviceRecord.Retirement.init(rawValue:))
        )
    }

    public func retireDevice(
        _ token: DeviceToken,
        as retirement: DeviceRecord.Retirement,
        at date: Date
    ) async throws(StoreError) -> Bool {
        try await write("retire a device") { db in
            try db.execute(
                sql: "UPDATE device SET retired_at = ?, retirement = ? WHERE token = ?",
                arguments: [date.timeIntervalSince1970, retirement.rawValue, token.hex]
            )
            return db.changesCount > 0
        }
    }

    public func insertNotifications(_ batch: [StoredNotification]) async throws(StoreError) {
        guard !batch.isEmpty else { return }
        try await write("store \(batch.count) notifications") { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO notification
                (apns_id, unique_id, device_token, bundle_id, topic, push_type, priority, expiration,
                 collapse_id, payload, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for notification in batch {
                try statement.execute(arguments: [
                    notification.apnsID.bytes, notification.uniqueID.bytes,
                    notification.deviceToken.hex, notification.bundleID, notification.topic,
                    notification.pushType.rawValue, notification.priority.rawValue, notification.expiration,
                    notification.collapseID, notification.payload, notification.receivedAt.timeIntervalSince1970,
                ])
            }
        }
    }

    public func notification(id: UUID) async throws(StoreError) -> StoredNotification? {
        let bytes = id.bytes
        return try await read("read a notification") { db in
            try Row.fetchOne(
                db,
                sql: "SELECT * FROM notification WHERE unique_id = ? OR apns_id = ? ORDER BY id DESC LIMIT 1",
                arguments: [bytes, bytes]
            ).map(Self.notification(from:))
        }
    }

    private static func notification(from row: Row) throws -> StoredNotification {
        guard let apnsID = UUID(bytes: row["apns_id"]),
              let uniqueID = UUID(bytes: row["unique_id"]),
              let token = DeviceToken(hex: row["device_token"] as String)
        else { throw StoreError(.corrupt, "a notification row cannot be read") }
        return StoredNotification(
            apnsID: apnsID,
            uniqueID: uniqueID,
            deviceToken: token,
            bundleID: row["bundle_id"],
            topic: row["topic"],
            pushType: PushType(rawValue: row["push_type"]),
            priority: Priority(rawValue: row["priority"]),
            expiration: row["expiration"],
            collapseID: row["collapse_id"],
            payload: row["payload"],
            receivedAt: Date(timeIntervalSince1970: row["received_at"])
        )
    }

    /// Copies committed pages from the write-ahead log into the database without waiting for readers or
    /// writers (a passive checkpoint), so the log stays short and commits stay fast.
    public func maintain() async throws(StoreError) {
        do {
            _ = try await checkpointer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        } catch {
            throw StoreError(.unavailable, "cannot checkpoint the write-ahead log", underlying: error)
        }
    }

    public func notificationCount() async throws(StoreError) -> Int {
        try await read("count notifications") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notification") ?? 0
        }
    }
}

extension UUID {
    /// The 16 bytes of the UUID, the compact form the store indexes.
    var bytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }

    init?(bytes: Data) {
        guard bytes.count == 16 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}
