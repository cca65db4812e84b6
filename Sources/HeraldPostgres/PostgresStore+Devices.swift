public import Foundation
public import HeraldStore
public import HeraldWire
import NIOCore
import PostgresNIO

extension PostgresStore {
    public func saveDevice(_ device: DeviceRecord) async throws(StoreError) {
        try await execute(
            "save a device",
            """
            INSERT INTO device (token, topic, environment, created_at, retired_at, retirement, owner, kind, activity_id, application_server_key)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (token) DO UPDATE SET topic = excluded.topic, environment = excluded.environment,
                created_at = excluded.created_at, retired_at = excluded.retired_at, retirement = excluded.retirement, owner = excluded.owner,
                kind = excluded.kind, activity_id = excluded.activity_id, application_server_key = excluded.application_server_key
            """,
            PostgresBindings(
                device.token.hex, device.topic, device.environment.rawValue, device.createdAt.timeIntervalSince1970,
                device.retiredAt?.timeIntervalSince1970, device.retirement?.rawValue, device.owner, device.kind.rawValue, device.activityID,
                device.applicationServerKey.map { ByteBuffer(bytes: $0) }))
    }

    public func device(_ token: DeviceToken) async throws(StoreError) -> DeviceRecord? {
        try await rows("read a device", "SELECT \(Self.deviceColumns) FROM device WHERE token = $1", PostgresBindings(token.hex), Self.device(from:))
            .first
    }

    public func devices(owner: String) async throws(StoreError) -> [DeviceRecord] {
        try await rows(
            "read a device's apps",
            "SELECT \(Self.deviceColumns) FROM device WHERE owner = $1 AND retired_at IS NULL ORDER BY topic, kind, activity_id",
            PostgresBindings(owner), Self.device(from:))
    }

    /// The live token, or a new one. Two nodes registering the same token of the same device at once get the same one:
    /// the index `device_live_registration` admits one live token per app, kind and activity per device, and the one
    /// that loses the race reads the winner's.
    public func register(
        owner: String, bundleID: String, environment: APNsEnvironment, kind: TokenKind, activityID: String?,
        applicationServerKey: Data?, at date: Date
    ) async throws(StoreError) -> DeviceRecord {
        let live = PostgresBindings(owner, bundleID, environment.rawValue, kind.rawValue, activityID ?? "")
        let select = """
            SELECT \(Self.deviceColumns) FROM device WHERE owner = $1 AND topic = $2 AND environment = $3 AND retired_at IS NULL
                AND kind = $4 AND coalesce(activity_id, '') = $5
            """
        if let existing = try await rows("register \(bundleID)", select, live, Self.device(from:)).first { return existing }
        let device = DeviceRecord(token: .random(), topic: bundleID, environment: environment, createdAt: date, owner: owner)
        let inserted = try await rows(
            "register \(bundleID)",
            """
            INSERT INTO device (token, topic, environment, created_at, owner, kind, activity_id, application_server_key)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (owner, topic, environment, kind, (coalesce(activity_id, ''))) WHERE owner IS NOT NULL AND retired_at IS NULL
            DO NOTHING
            RETURNING \(Self.deviceColumns)
            """,
            PostgresBindings(
                device.token.hex, bundleID, environment.rawValue, date.timeIntervalSince1970, owner, kind.rawValue, activityID,
                applicationServerKey.map { ByteBuffer(bytes: $0) }),
            Self.device(from:))
        if let inserted = inserted.first { return inserted }
        guard let winner = try await rows("register \(bundleID)", select, live, Self.device(from:)).first else {
            throw StoreError(.conflict, "cannot register \(bundleID): another registration took its place and was retired at once")
        }
        return winner
    }

    /// Retires the token, numbered in commit order, and discards what its app had pending, in one call (so one
    /// transaction): ``PostgresSchema/retirementsInOrder``.
    public func retireDevice(_ token: DeviceToken, as retirement: DeviceRecord.Retirement, at date: Date) async throws(StoreError) -> Bool {
        try await rows(
            "retire a device", "SELECT herald_retire_device($1, $2, $3)",
            PostgresBindings(token.hex, retirement.rawValue, date.timeIntervalSince1970)
        ) { row in try row.next(Bool.self) }.first == true
    }

    public func retirements(after sequence: Int64, limit: Int) async throws(StoreError) -> [TokenRetirement] {
        try await rows(
            "read retired tokens",
            "SELECT retired_seq, \(Self.deviceColumns) FROM device WHERE retired_seq > $1 ORDER BY retired_seq LIMIT $2",
            PostgresBindings(sequence, Int64(limit))
        ) { row in
            let sequence = try row.next(Int64.self)
            return TokenRetirement(sequence: sequence, device: try Self.device(from: &row))
        }
    }

    public func latestRetirement() async throws(StoreError) -> Int64 {
        try await rows("read the latest retirement", "SELECT coalesce(max(retired_seq), 0) FROM device") { row in try row.next(Int64.self) }
            .first ?? 0
    }

    static let deviceColumns = "token, topic, environment, created_at, retired_at, retirement, owner, kind, activity_id, application_server_key"

    private static func device(from row: inout RowReader) throws -> DeviceRecord {
        guard let token = DeviceToken(hex: try row.next(String.self)) else { throw StoreError(.corrupt, "a device row cannot be read") }
        let topic = try row.next(String.self)
        guard let environment = APNsEnvironment(rawValue: try row.next(String.self)) else {
            throw StoreError(.corrupt, "a device row cannot be read")
        }
        return DeviceRecord(
            token: token, topic: topic, environment: environment, createdAt: Date(timeIntervalSince1970: try row.next()),
            retiredAt: try row.next(Double?.self).map(Date.init(timeIntervalSince1970:)),
            retirement: try row.next(String?.self).flatMap(DeviceRecord.Retirement.init(rawValue:)), owner: try row.next(),
            kind: try kind(row.next(String.self)), activityID: try row.next(), applicationServerKey: try row.next(Data?.self))
    }

    private static func kind(_ name: String) throws(StoreError) -> TokenKind {
        guard let kind = TokenKind(rawValue: name) else { throw StoreError(.corrupt, "a device row has an unknown token kind") }
        return kind
    }

    public func saveLinkedDevice(_ device: LinkedDevice) async throws(StoreError) {
        try await execute(
            "save a linked device",
            """
            INSERT INTO linked_device (id, public_key, first_seen_at, last_seen_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (id) DO UPDATE SET last_seen_at = excluded.last_seen_at
            """,
            PostgresBindings(
                device.id, ByteBuffer(bytes: device.publicKey), device.firstSeenAt.timeIntervalSince1970, device.lastSeenAt.timeIntervalSince1970))
    }

    public func linkedDevices() async throws(StoreError) -> [LinkedDevice] {
        try await rows("read linked devices", "SELECT id, public_key, first_seen_at, last_seen_at FROM linked_device ORDER BY id") { row in
            LinkedDevice(
                id: try row.next(), publicKey: try row.next(), firstSeenAt: Date(timeIntervalSince1970: try row.next()),
                lastSeenAt: Date(timeIntervalSince1970: try row.next()))
        }
    }

    public func setStoragePolicy(_ policy: StoragePolicy, bundleID: String) async throws(StoreError) {
        try await execute(
            "set the storage policy of \(bundleID)",
            """
            INSERT INTO app (bundle_id, policy, cap) VALUES ($1, $2, $3)
            ON CONFLICT (bundle_id) DO UPDATE SET policy = excluded.policy, cap = excluded.cap
            """,
            PostgresBindings(bundleID, policy.kind.rawValue, Int32(clamping: policy.cap)))
    }

    public func storagePolicy(bundleID: String) async throws(StoreError) -> StoragePolicy {
        try await rows(
            "read the storage policy of \(bundleID)", "SELECT policy, cap FROM app WHERE bundle_id = $1", PostgresBindings(bundleID),
            Self.policy(from:)
        ).first ?? .latest
    }

    public func apps() async throws(StoreError) -> [AppRecord] {
        try await rows(
            "read apps",
            """
            SELECT names.bundle_id, app.policy, app.cap,
                   (SELECT count(*) FROM device
                    WHERE device.topic = names.bundle_id AND device.owner IS NOT NULL AND device.retired_at IS NULL
                        AND device.kind = 'app') AS devices
            FROM (SELECT bundle_id FROM app UNION SELECT topic FROM device WHERE owner IS NOT NULL) AS names
            LEFT JOIN app ON app.bundle_id = names.bundle_id
            ORDER BY names.bundle_id
            """
        ) { row in
            let bundleID = try row.next(String.self)
            let policy: StoragePolicy
            if let kind = try row.next(String?.self) {
                guard let kind = StoragePolicy.Kind(rawValue: kind) else { throw StoreError(.corrupt, "an app has an unknown storage policy") }
                policy = StoragePolicy(kind: kind, cap: Int(try row.next(Int32.self)))
            } else {
                _ = try row.next(Int32?.self)
                policy = .latest
            }
            return AppRecord(bundleID: bundleID, storagePolicy: policy, deviceCount: Int(try row.next(Int64.self)))
        }
    }

    private static func policy(from row: inout RowReader) throws -> StoragePolicy {
        guard let kind = StoragePolicy.Kind(rawValue: try row.next(String.self)) else {
            throw StoreError(.corrupt, "an app has an unknown storage policy")
        }
        return StoragePolicy(kind: kind, cap: Int(try row.next(Int32.self)))
    }
}
