import HeraldStore
import Logging
import PostgresNIO

/// The PostgreSQL store's tables, in versioned migrations.
///
/// `herald_schema` holds the version a database is at. Migrations run under a session advisory lock, so that nodes
/// starting together on an empty database take turns: the first creates the schema, the others find it done. Each
/// version commits in a transaction of its own. A database at a version this binary does not know (a newer herald
/// migrated it) is refused rather than written to.
///
/// Dates are `double precision` seconds since 1970, as the SQLite store keeps them, so a `Date` reads back exactly
/// what was written. Tokens are `COLLATE "C"`, so a token prefix is a range of bytes whatever the database's locale.
enum PostgresSchema {
    /// The key of the session advisory lock migrations run under.
    static let migrationLock: Int64 = 0x4845_5241_4C44_0001
    /// The key of the transaction advisory lock a commit of notifications holds from taking its ids until it has
    /// committed (see ``PostgresSchema/insertFunction``).
    static let commitLock: Int64 = 0x4845_5241_4C44_0002
    /// The key of the transaction advisory lock a retirement holds from taking its number until it has committed (see
    /// ``PostgresSchema/retirementsInOrder``).
    static let retirementLock: Int64 = 0x4845_5241_4C44_0003
    /// The first key of the transaction advisory locks a channel's creation holds (the second is its app's), so that
    /// the per-app limit holds across nodes (see ``PostgresSchema/broadcastChannels``).
    static let channelLock: Int32 = 0x4843_4831
    /// The channel commits are announced on: `NODE FIRST LAST`.
    static let commitChannel = "herald_commits"

    /// Each version's statements, run in order in one transaction.
    static let migrations: [[String]] = [tables, [insertFunction], retirementsInOrder, broadcastChannels, tokenKinds, faultRules, webPush]

    /// The version this binary brings a database to.
    static var latestVersion: Int { migrations.count }

    /// Brings the database `connection` is on up to ``latestVersion``, holding the migration lock meanwhile.
    ///
    /// The caller closes the connection afterwards, which also lets go of the lock when this throws half-way.
    ///
    /// - Returns: The version the database was at, and the one it is at now.
    /// - Throws: ``StoreError`` `.unavailable` when the database's version is newer than ``latestVersion``, or
    ///   PostgresNIO's errors (the caller converts them).
    static func apply(on connection: PostgresConnection, database: String, logger: Logger) async throws -> (from: Int, to: Int) {
        // A node waits for another's migration however long it takes.
        try await connection.query("SET lock_timeout = 0", logger: logger)
        try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS herald_schema (
                one boolean PRIMARY KEY DEFAULT true CHECK (one),
                version integer NOT NULL
            )
            """, logger: logger)
        try await connection.query("INSERT INTO herald_schema (version) VALUES (0) ON CONFLICT DO NOTHING", logger: logger)
        let rows = try await connection.query("SELECT version FROM herald_schema", logger: logger).collect()
        let found = try rows.first.map { try $0.decode(Int.self) } ?? 0
        guard found <= latestVersion else {
            throw StoreError(
                .unavailable,
                "the database \(database) is at schema version \(found), newer than this herald knows (\(latestVersion)): "
                    + "a newer herald migrated it; run that version")
        }
        for version in stride(from: found + 1, through: latestVersion, by: 1) {
            try await connection.query("BEGIN", logger: logger)
            for statement in migrations[version - 1] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query("UPDATE herald_schema SET version = \(version)", logger: logger)
            try await connection.query("COMMIT", logger: logger)
            logger.info("PostgreSQL schema migrated", metadata: ["database": "\(database)", "version": "\(version)"])
        }
        try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
        return (found, latestVersion)
    }

    /// Version 1: what the SQLite store keeps (at its v4), and what a cluster shares.
    static let tables = [
        """
        CREATE TABLE provider_key (
            team_id text NOT NULL,
            key_id text NOT NULL,
            topics text[] NOT NULL,
            environment text NOT NULL,
            public_key_pem text NOT NULL,
            created_at double precision NOT NULL,
            revoked_at double precision,
            PRIMARY KEY (team_id, key_id)
        )
        """,
        """
        CREATE TABLE device (
            token text COLLATE "C" PRIMARY KEY,
            topic text NOT NULL,
            environment text NOT NULL,
            created_at double precision NOT NULL,
            retired_at double precision,
            retirement text,
            owner text
        )
        """,
        // One live token per app per device: registrations racing on two nodes get the same one.
        """
        CREATE UNIQUE INDEX device_live_registration ON device (owner, topic, environment)
            WHERE owner IS NOT NULL AND retired_at IS NULL
        """,
        """
        CREATE TABLE linked_device (
            id text PRIMARY KEY,
            public_key bytea NOT NULL,
            first_seen_at double precision NOT NULL,
            last_seen_at double precision NOT NULL
        )
        """,
        "CREATE TABLE app (bundle_id text PRIMARY KEY, policy text NOT NULL, cap integer NOT NULL)",
        // Ids are taken only under the commit lock, a batch's all at once (see insertFunction).
        "CREATE SEQUENCE notification_id AS bigint",
        """
        CREATE TABLE notification (
            id bigint PRIMARY KEY,
            apns_id bytea NOT NULL,
            unique_id bytea NOT NULL,
            device_token text COLLATE "C" NOT NULL,
            device_id text,
            bundle_id text NOT NULL,
            topic text NOT NULL,
            push_type text NOT NULL,
            priority integer NOT NULL,
            expiration bigint,
            collapse_id text,
            payload bytea NOT NULL,
            received_at double precision NOT NULL,
            offline_policy text,
            offline_cap integer,
            state text NOT NULL DEFAULT 'pending',
            stored_at double precision,
            delivered_at double precision,
            discarded_at double precision,
            discard_reason text,
            response_action text,
            response_text text,
            responded_at double precision
        )
        """,
        // The delivery log by apns-id (newest first, from the index), by unique id, and by token prefix.
        "CREATE INDEX notification_apns_id ON notification (apns_id, id)",
        "CREATE UNIQUE INDEX notification_unique_id ON notification (unique_id)",
        "CREATE INDEX notification_token ON notification (device_token, id)",
        // What a linked device has pending, and (filtered by token) what one of its apps has.
        """
        CREATE INDEX notification_pending_by_device ON notification (device_id, id)
            WHERE state = 'pending' AND device_id IS NOT NULL
        """,
        """
        CREATE TABLE node (
            id text PRIMARY KEY,
            name text NOT NULL,
            started_at double precision NOT NULL,
            heartbeat_at double precision NOT NULL,
            lease_until double precision NOT NULL
        )
        """,
        """
        CREATE TABLE device_link (
            device_id text PRIMARY KEY,
            node_id text NOT NULL,
            linked_at double precision NOT NULL
        )
        """,
        "CREATE INDEX device_link_node ON device_link (node_id)",
        "CREATE TABLE secret (name text PRIMARY KEY, value bytea NOT NULL)",
    ]
}
