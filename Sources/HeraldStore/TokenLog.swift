import GRDB

/// The delivery log's index of device tokens: the (token, id) pairs of the store's notifications in token order, in
/// a database file of its own beside the store (`PATH-tokens`), filled by ``SQLiteStore/maintain()`` every few
/// hundred milliseconds.
///
/// Not an index on the notification table: every commit would then write a page of it per distinct token, which cost
/// the gateway 15% of its throughput; nor a table in the store's file: filling it would hold the store's one writer,
/// and commits queued behind it made the provider API's p99 latency twice as long. Here the store is only read, and
/// this file has its own writer. It holds nothing that cannot be rebuilt from the store: when it is missing, or
/// reaches past the store (a store restored from an older copy), it is filled again from the start.
final class TokenLog: Sendable {
    let pool: DatabasePool

    /// Pairs copied per write; a beat copies at most ``chunksPerBeat`` of them.
    static let chunk = 10_000
    static let chunksPerBeat = 20
    /// The page cache of the writer's connection, in KiB.
    static let writerCacheKiB = 128 * 1024

    /// - Parameters:
    ///   - path: The token log's file.
    ///   - storePath: The store's file, attached to each connection as `store` and only read.
    init(path: String, storePath: String) throws {
        var configuration = Configuration()
        // The writer runs with synchronous = NORMAL, GRDB's setting for a pool in WAL mode: its commits do not sync, its
        // checkpoints do. OFF would save those syncs (measured: no gain in the provider API's p99 at 10,000/s,
        // docs/latency.md) but a power cut could then corrupt the file, which would need detecting to be rebuilt.
        configuration.prepareDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS store", arguments: [storePath])
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        // Each fill adds a pair under every token it saw, wherever that token's entries are in the index: with many
        // tokens, most pages of the index. With SQLite's default cache (2,000 KiB) they were read back from the
        // file and spilled to the log mid-fill; with 5,000 tokens, 128 MB took the gateway's system calls per
        // notification from 4.7–5.0 to 2.2 and its CPU from 77.5–86.8 to 63.8–71.6 µs. Only this writer's connection
        // keeps that many pages, and only as it touches them.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA cache_size = -\(Self.writerCacheKiB)") }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE token_log (device_token TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (device_token, id)) WITHOUT ROWID;
                    CREATE TABLE token_log_state (indexed_up_to INTEGER NOT NULL);
                    INSERT INTO token_log_state VALUES (0);
                    """)
        }
        try migrator.migrate(pool)
    }

    /// The highest notification id whose token is in the log.
    static let indexedUpTo = "SELECT indexed_up_to FROM token_log_state"

    /// Copies the pairs of the notifications committed since the last call from the store, a chunk per transaction, in
    /// SQLite alone (no row comes up to Swift).
    func catchUp() throws {
        for _ in 0..<Self.chunksPerBeat {
            // Deferred, not GRDB's usual immediate transaction: that would take the write lock of every attached file,
            // the store's among them, and hold up its commits.
            let more = try pool.writeWithoutTransaction { db -> Bool in
                var more = false
                try db.inTransaction(.deferred) {
                    var indexed = try Int64.fetchOne(db, sql: Self.indexedUpTo) ?? 0
                    let newest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM store.notification") ?? 0
                    if newest < indexed {
                        try db.execute(sql: "DELETE FROM token_log")
                        indexed = 0
                    }
                    let end = min(newest, indexed + Int64(Self.chunk))
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO token_log SELECT device_token, id FROM store.notification WHERE id > ? AND id <= ?",
                        arguments: [indexed, end])
                    try db.execute(sql: "UPDATE token_log_state SET indexed_up_to = ?", arguments: [end])
                    more = end < newest
                    return .commit
                }
                return more
            }
            if !more { return }
        }
    }
}
