public import Foundation
import GRDB
public import HeraldWire

extension SQLiteStore {
    public func saveDevice(_ device: DeviceRecord) async throws(StoreError) {
        try await write("save a device") { db in try Self.insert(device, db) }
    }

    private static func insert(_ device: DeviceRecord, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO device
                (token, topic, environment, created_at, retired_at, retirement, owner, kind, activity_id, application_server_key)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                device.token.hex, device.topic, device.environment.rawValue, device.createdAt.timeIntervalSince1970,
                device.retiredAt?.timeIntervalSince1970, device.retirement?.rawValue, device.owner, device.kind.rawValue,
                device.activityID, device.applicationServerKey,
            ]
        )
    }

    public func device(_ token: DeviceToken) async throws(StoreError) -> DeviceRecord? {
        try await read("read a device") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM device WHERE token = ?", arguments: [token.hex]).map(Self.device(from:))
        }
    }

    public func devices(owner: String) async throws(StoreError) -> [DeviceRecord] {
        try await read("read a device's apps") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM device WHERE owner = ? AND retired_at IS NULL ORDER BY topic, kind, activity_id",
                arguments: [owner]
            ).map(Self.device(from:))
        }
    }

    public func register(
        owner: String,
        bundleID: String,
        environment: APNsEnvironment,
        kind: TokenKind,
        activityID: String?,
        applicationServerKey: Data?,
        at date: Date
    ) async throws(StoreError) -> DeviceRecord {
        try await write("register \(bundleID)") { db in
            let live = try Row.fetchOne(
                db,
                sql: """
                    SELECT * FROM device WHERE owner = ? AND topic = ? AND retired_at IS NULL AND environment = ?
                        AND kind = ? AND activity_id IS ?
                    """,
                arguments: [owner, bundleID, environment.rawValue, kind.rawValue, activityID]
            )
            if let live { return try Self.device(from: live) }
            let device = DeviceRecord(
                token: .random(), topic: bundleID, environment: environment, createdAt: date, owner: owner, kind: kind,
                activityID: activityID, applicationServerKey: applicationServerKey)
            try Self.insert(device, db)
            return device
        }
    }

    static func device(from row: Row) throws -> DeviceRecord {
        guard let token = DeviceToken(hex: row["token"] as String),
            let environment = APNsEnvironment(rawValue: row["environment"]),
            let kind = TokenKind(rawValue: row["kind"])
        else { throw StoreError(.corrupt, "a device row cannot be read") }
        return DeviceRecord(
            token: token,
            topic: row["topic"],
            environment: environment,
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            retiredAt: (row["retired_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            retirement: (row["retirement"] as String?).flatMap(DeviceRecord.Retirement.init(rawValue:)),
            owner: row["owner"],
            kind: kind,
            activityID: row["activity_id"],
            applicationServerKey: row["application_server_key"]
        )
    }

    public func retireDevice(
        _ token: DeviceToken,
        as retirement: DeviceRecord.Retirement,
        at date: Date
    ) async throws(StoreError) -> Bool {
        try await write("retire a device") { db in
            // One writer at a time: numbers are taken, and committed, in order.
            let retired = try Row.fetchOne(
                db,
                sql: """
                    UPDATE device SET retired_at = ?, retirement = ?,
                        retired_seq = (SELECT IFNULL(MAX(retired_seq), 0) + 1 FROM device)
                    WHERE token = ? RETURNING owner
                    """,
                arguments: [date.timeIntervalSince1970, retirement.rawValue, token.hex]
            )
            guard let retired else { return false }
            if let owner = retired["owner"] as String? {
                try db.execute(
                    sql: Self.discardPendingForApp,
                    arguments: [date.timeIntervalSince1970, DiscardReason.unregistered.rawValue, owner, token.hex]
                )
            }
            return true
        }
    }

    public func retirements(after sequence: Int64, limit: Int) async throws(StoreError) -> [TokenRetirement] {
        try await read("read retired tokens") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM device WHERE retired_seq > ? ORDER BY retired_seq LIMIT ?", arguments: [sequence, limit]
            ).map { row in TokenRetirement(sequence: row["retired_seq"], device: try Self.device(from: row)) }
        }
    }

    public func latestRetirement() async throws(StoreError) -> Int64 {
        try await read("read the latest retirement") { db in
            try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(retired_seq), 0) FROM device") ?? 0
        }
    }

    public func saveLinkedDevice(_ device: LinkedDevice) async throws(StoreError) {
        try await write("save a linked device") { db in
            try db.execute(
                sql: """
                    INSERT INTO linked_device (id, public_key, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET last_seen_at = excluded.last_seen_at
                    """,
                arguments: [device.id, device.publicKey, device.firstSeenAt.timeIntervalSince1970, device.lastSeenAt.timeIntervalSince1970]
            )
        }
    }

    public func linkedDevices() async throws(StoreError) -> [LinkedDevice] {
        try await read("read linked devices") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM linked_device ORDER BY id").map { row in
                LinkedDevice(
                    id: row["id"],
                    publicKey: row["public_key"],
                    firstSeenAt: Date(timeIntervalSince1970: row["first_seen_at"]),
                    lastSeenAt: Date(timeIntervalSince1970: row["last_seen_at"])
                )
            }
        }
    }

    public func setStoragePolicy(_ policy: StoragePolicy, bundleID: String) async throws(StoreError) {
        try await write("set the storage policy of \(bundleID)") { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO app (bundle_id, policy, cap) VALUES (?, ?, ?)",
                arguments: [bundleID, policy.kind.rawValue, policy.cap]
            )
        }
    }

    public func storagePolicy(bundleID: String) async throws(StoreError) -> StoragePolicy {
        try await read("read the storage policy of \(bundleID)") { db in
            try Row.fetchOne(db, sql: "SELECT policy, cap FROM app WHERE bundle_id = ?", arguments: [bundleID])
                .map(Self.policy(from:)) ?? .latest
        }
    }

    public func apps() async throws(StoreError) -> [AppRecord] {
        try await read("read apps") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT names.bundle_id, app.policy, app.cap,
                           (SELECT COUNT(*) FROM device
                            WHERE device.topic = names.bundle_id AND device.owner IS NOT NULL AND device.retired_at IS NULL
                                AND device.kind = 'app') AS devices
                    FROM (SELECT bundle_id FROM app UNION SELECT topic FROM device WHERE owner IS NOT NULL) AS names
                    LEFT JOIN app ON app.bundle_id = names.bundle_id
                    ORDER BY names.bundle_id
                    """
            ).map { row in
                AppRecord(
                    bundleID: row["bundle_id"],
                    storagePolicy: row["policy"] == nil ? .latest : try Self.policy(from: row),
                    deviceCount: row["devices"]
                )
            }
        }
    }

    private static func policy(from row: Row) throws -> StoragePolicy {
        guard let kind = StoragePolicy.Kind(rawValue: row["policy"]) else {
            throw StoreError(.corrupt, "an app has an unknown storage policy")
        }
        return StoragePolicy(kind: kind, cap: row["cap"])
    }
}
