import CSQLiteSettings
import Foundation
import GRDB
import HeraldWire
import Synchronization

/// The default store: one SQLite file in WAL mode, shared safely by the gateway and CLI processes.
///
/// Every write is a transaction committed with `synchronous = FULL`, so what a call returned from
/// survives a crash of the process or the machine.
public final class SQLiteStore: Store {
    let pool: DatabasePool
    /// The delivery log's index of device tokens, in a file of its own beside the store.
    let tokenLog: TokenLog
    /// A connection of its own for WAL checkpoints, so they never run inside a commit.
    private let checkpointer: DatabaseQueue
    /// Fills the token log, below the priority of commits and event loops.
    let housekeeping = HousekeepingThread(name: "store-housekeep", niceness: 10)
    /// Runs the checkpoints at normal priority, giving way to a woken event loop (``HousekeepingThread``).
    private let checkpointing = HousekeepingThread(name: "store-checkpoint", niceness: 0)
    /// Whether a fill of the token log is queued or running, and how the last one failed, until ``maintain()`` says so.
    private let tokenFill = Mutex<(running: Bool, failure: StoreError?)>((false, nil))
    /// The log's length, in frames (a page each), past which ``maintain()`` makes it start over.
    private let logFrameLimit: Int
    /// The directory holding the files, whose free space bounds the log too.
    private let directory: String

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    ///
    /// - Parameters:
    ///   - logFrameLimit: Bounds the write-ahead log: 4,096 frames are 16 MiB with 4 KiB pages.
    ///   - busyTimeout: How long a write waits while another process (a CLI command, a backup) holds the
    ///     database before it fails with ``StoreError/Code/busy``. The gateway waits briefly, so that a provider
    ///     gets 503 instead of a request that hangs; a command can afford to wait longer.
    /// - Throws: ``StoreError`` `.unavailable` when the file cannot be opened or migrated.
    public init(path: String, logFrameLimit: Int = 4096, busyTimeout: Duration = .seconds(10)) throws(StoreError) {
        self.logFrameLimit = logFrameLimit
        _ = Self.memoryStatisticsOff
        directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var configuration = Configuration()
        configuration.busyMode = .timeout(Double(busyTimeout.components.seconds) + Double(busyTimeout.components.attoseconds) / 1e18)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = -65536")  // 64 MiB: keep index pages in memory
            // Commits never checkpoint; maintain() does, between them.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            // When the log starts over, a file a burst made long is cut back to this.
            try db.execute(sql: "PRAGMA journal_size_limit = \(logFrameLimit * Self.pageSize * 2)")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // Opening a pool sets up WAL with synchronous = NORMAL on the writer, after prepareDatabase ran: that
            // survives a crash of the process but not of the machine. Every commit must sync the log.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.migrator.migrate(pool)
            // Housekeeping never waits long: a checkpoint that finds the log busy is skipped until the next beat.
            var checkpointConfiguration = Configuration()
            checkpointConfiguration.busyMode = .timeout(0.01)
            checkpointer = try DatabaseQueue(path: path, configuration: checkpointConfiguration)
            tokenLog = try TokenLog(path: path + "-tokens", storePath: path)
        } catch {
            throw StoreError(.unavailable, "cannot open the SQLite store at \(path)", underlying: error)
        }
    }

    deinit {
        housekeeping.stop()
        checkpointing.stop()
    }

    /// Whether SQLite's memory statistics are off in this process. SQLite keeps them by default, under one mutex of the
    /// whole process taken around every allocation and release of every connection: 2% of the gateway's instructions,
    /// and a thread preempted holding it holds up every other (the store's writer among them). Herald reads none of
    /// them. They can be switched off only before SQLite's first use in the process, as the gateway's store is.
    static let memoryStatisticsOff = csqlite_disable_memory_statistics() == 0

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
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
        migrator.registerMigration("v2: devices, apps, delivery") { db in
            try db.execute(
                sql: """
                    ALTER TABLE device ADD COLUMN owner TEXT;
                    CREATE INDEX device_owner ON device(owner, topic) WHERE owner IS NOT NULL;
                    CREATE TABLE linked_device (
                        id TEXT PRIMARY KEY NOT NULL,
                        public_key BLOB NOT NULL,
                        first_seen_at DOUBLE NOT NULL,
                        last_seen_at DOUBLE NOT NULL
                    );
                    CREATE TABLE app (
                        bundle_id TEXT PRIMARY KEY NOT NULL,
                        policy TEXT NOT NULL,
                        cap INTEGER NOT NULL
                    );
                    ALTER TABLE notification ADD COLUMN device_id TEXT;
                    ALTER TABLE notification ADD COLUMN offline_policy TEXT;
                    ALTER TABLE notification ADD COLUMN offline_cap INTEGER;
                    ALTER TABLE notification ADD COLUMN state TEXT NOT NULL DEFAULT 'pending';
                    ALTER TABLE notification ADD COLUMN stored_at DOUBLE;
                    ALTER TABLE notification ADD COLUMN delivered_at DOUBLE;
                    ALTER TABLE notification ADD COLUMN discarded_at DOUBLE;
                    ALTER TABLE notification ADD COLUMN discard_reason TEXT;
                    CREATE INDEX notification_pending_by_device ON notification(device_id, id)
                        WHERE state = 'pending' AND device_id IS NOT NULL;
                    CREATE INDEX notification_pending_by_token ON notification(device_token, id)
                        WHERE state = 'pending' AND device_id IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v3: one pending index") { db in
            // Each notification for an online device enters and leaves the pending indexes once, and one commit
            // carries many devices' notifications: each index costs about a page per commit per device. The
            // device's index serves an app's queries too (they name the device): a fifth fewer log frames.
            try db.execute(sql: "DROP INDEX notification_pending_by_token")
        }
        migrator.registerMigration("v4: responses") { db in
            try db.execute(
                sql: """
                    ALTER TABLE notification ADD COLUMN response_action TEXT;
                    ALTER TABLE notification ADD COLUMN response_text TEXT;
                    ALTER TABLE notification ADD COLUMN responded_at REAL;
                    """)
        }
        migrator.registerMigration("v5: retirements in order") { db in
            // Tokens retired before this version have no number: they were announced when they happened.
            try db.execute(
                sql: """
                    ALTER TABLE device ADD COLUMN retired_seq INTEGER;
                    CREATE UNIQUE INDEX device_retired_seq ON device(retired_seq) WHERE retired_seq IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v6: broadcast channels") { db in
            try db.execute(
                sql: """
                    CREATE TABLE broadcast_channel (
                        id TEXT PRIMARY KEY NOT NULL,
                        bundle_id TEXT NOT NULL,
                        environment TEXT NOT NULL,
                        storage_policy INTEGER NOT NULL,
                        created_at DOUBLE NOT NULL,
                        deleted_at DOUBLE
                    );
                    CREATE INDEX broadcast_channel_app ON broadcast_channel(bundle_id, environment) WHERE deleted_at IS NULL;
                    CREATE TABLE channel_broadcast (
                        channel_id TEXT PRIMARY KEY NOT NULL,
                        unique_id BLOB NOT NULL,
                        payload BLOB NOT NULL,
                        priority INTEGER NOT NULL,
                        expires_at DOUBLE NOT NULL,
                        received_at DOUBLE NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v7: token kinds and channel subscriptions") { db in
            // Every token before this version is an app's own. A broadcast is one notification row with its channel id;
            // the channel's kept broadcast points to it.
            try db.execute(
                sql: """
                    ALTER TABLE device ADD COLUMN kind TEXT NOT NULL DEFAULT 'app';
                    ALTER TABLE device ADD COLUMN activity_id TEXT;
                    ALTER TABLE notification ADD COLUMN channel_id TEXT;
                    ALTER TABLE channel_broadcast ADD COLUMN notification_id INTEGER;
                    CREATE TABLE channel_subscription (
                        device_id TEXT NOT NULL,
                        channel_id TEXT NOT NULL,
                        bundle_id TEXT NOT NULL,
                        subscribed_at DOUBLE NOT NULL,
                        delivered_id INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (device_id, channel_id)
                    );
                    CREATE INDEX channel_subscription_channel ON channel_subscription(channel_id);
                    """)
        }
        migrator.registerMigration("v8: fault rules") { db in
            // A rule is kept as the JSON the admin API speaks (FaultRule+JSON).
            try db.execute(
                sql: """
                    CREATE TABLE fault_rule (
                        id TEXT PRIMARY KEY,
                        rule TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        expires_at DOUBLE NOT NULL,
                        persistent INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v9: web push") { db in
            // A subscription is a device row of kind webPush with the key it was made with; a message is a notification
            // row with its urgency, TTL and sender as JSON (WebPushDetails).
            try db.execute(
                sql: """
                    ALTER TABLE device ADD COLUMN application_server_key BLOB;
                    ALTER TABLE notification ADD COLUMN web_push TEXT;
                    CREATE INDEX notification_pending_web_push_topic ON notification(device_token, collapse_id)
                        WHERE state = 'pending' AND web_push IS NOT NULL AND collapse_id IS NOT NULL;
                    """)
        }
        return migrator
    }

    func write<T: Sendable>(_ what: String, _ body: @Sendable @escaping (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw StoreError.sqlite(error, cannot: what)
        }
    }

    /// ``write(_:_:)`` for records a crash may lose: the commit does not wait for the disk. The next synced
    /// commit (or checkpoint) takes its frames of the log to disk with it.
    func writeUnsynced<T: Sendable>(_ what: String, _ body: @Sendable @escaping (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                func transaction() throws -> T {
                    var value: T?
                    try db.inTransaction {
                        value = try body(db)
                        return .commit
                    }
                    return value!  // set: the transaction committed
                }
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                let outcome = Result(catching: transaction)
                try db.execute(sql: "PRAGMA synchronous = FULL")  // every other commit syncs
                return try outcome.get()
            }
        } catch {
            throw StoreError.sqlite(error, cannot: what)
        }
    }

    func read<T: Sendable>(_ what: String, _ body: @Sendable @escaping (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw StoreError.sqlite(error, cannot: what)
        }
    }

    /// Copies committed pages from the write-ahead log into the database without waiting for readers or
    /// writers (a passive checkpoint), so the log stays short and commits stay fast; then starts bringing the delivery
    /// log's token index up to date, unless a fill is still under way. The checkpoint comes first: on a full disk the
    /// index cannot be written, and the checkpoint is what lets the log start over once space returns.
    ///
    /// Under steady load a passive checkpoint is not enough: commits keep coming while the copy runs, so it
    /// never catches up, SQLite never starts the log over, and every commit appends to an ever longer file
    /// (500 MB in 15 s at 10,000 deliveries/s, each append costing the kernel a fresh page). Once the log is
    /// longer than `frameLimitNow()` allows, a second pass runs on the writer's connection, between two
    /// commits: it copies the few frames the first left behind, and the next commit starts the log over from its
    /// beginning.
    ///
    /// The fill runs on the housekeeping thread, at a priority a saturated machine slows down, so it is not waited for:
    /// the next beat's checkpoint must not wait on it. Its failure is thrown by the next call. ``indexTokens()`` waits.
    public func maintain() async throws(StoreError) {
        do {
            // At normal priority, not at the fill's nice 10: slowed down on a saturated machine, the checkpoint would fall
            // behind the commits and the log would grow until the disk is full.
            let checkpointer = checkpointer
            let (frames, _) = try await checkpointing.run { try checkpointer.writeWithoutTransaction { db in try db.checkpoint(.passive) } }
            if frames >= frameLimitNow() {
                _ = try await pool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            // A commit starting the log over, or another process, held it past the checkpointer's 10 ms busy timeout
            // (or the writer's, for the second pass): the next beat copies.
        } catch {
            throw StoreError.sqlite(error, cannot: "checkpoint the write-ahead log")
        }
        let (start, failure) = tokenFill.withLock { fill in
            defer { fill = (true, nil) }
            return (!fill.running, fill.failure)
        }
        if start, !housekeeping.submit({ [weak self] in self?.fillTokenLog() }) {
            tokenFill.withLock { $0.running = false }
        }
        if let failure { throw failure }
    }

    /// A fill ``maintain()`` started, on the housekeeping thread.
    private func fillTokenLog() {
        var failure: StoreError?
        do { try tokenLog.catchUp() } catch { failure = Self.tokenFillError(error) }
        tokenFill.withLock { $0 = (false, failure) }
    }

    /// Brings the delivery log's token index up to date and waits until it is (after a fill ``maintain()`` started):
    /// for tests and benchmarks that search a complete index.
    public func indexTokens() async throws(StoreError) {
        do {
            let tokenLog = tokenLog
            try await housekeeping.run { try tokenLog.catchUp() }
        } catch {
            throw Self.tokenFillError(error)
        }
    }

    private static func tokenFillError(_ error: any Error) -> StoreError {
        StoreError.sqlite(error, cannot: "index the delivery log's device tokens")
    }

    /// The log's length, in frames, past which it must start over: `logFrameLimit`, or less on a nearly full disk,
    /// where the log may take at most a quarter of the space left. A burst on a small disk then reuses the log
    /// instead of growing it into the space the database file needs for the pages a checkpoint copies.
    private func frameLimitNow() -> Int {
        var stats = statvfs()
        guard statvfs(directory, &stats) == 0 else { return logFrameLimit }
        let freeBytes = Int(stats.f_bavail) * Int(stats.f_frsize)
        return min(logFrameLimit, freeBytes / 4 / Self.pageSize)
    }

    /// SQLite's default page size, which the store keeps: a frame of the log holds one page.
    private static let pageSize = 4096
}

extension StoreError {
    /// A failure at the SQLite store's boundary: `.busy` when another connection held the database past the
    /// busy timeout, `.full` when the disk has no space left (SQLITE_FULL), `.readOnly` when the file or its
    /// directory cannot be written (SQLITE_READONLY), else `.unavailable`; a ``StoreError`` thrown inside a
    /// transaction passes unchanged.
    static func sqlite(_ error: any Error, cannot what: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? DatabaseError else { return StoreError(.unavailable, "cannot \(what)", underlying: error) }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError(.busy, "cannot \(what): another process holds the database", underlying: error)
        case .SQLITE_FULL:
            return StoreError(.full, "cannot \(what): the disk is full", underlying: error)
        case .SQLITE_READONLY:
            return StoreError(.readOnly, "cannot \(what): the data directory is read-only", underlying: error)
        default:
            return StoreError(.unavailable, "cannot \(what)", underlying: error)
        }
    }
}
