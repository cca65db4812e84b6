import Foundation
import GRDB
import GRDBSQLite

/// Binds a prepared statement's parameters in order, straight to SQLite, and runs it.
///
/// For the statements run once per notification (the insert, the delivery record): there, building
/// `StatementArguments` (an array of `DatabaseValue`s) and GRDB's nested binding closures cost more
/// CPU than SQLite's own work for the row. SQLite copies every text and blob it is given
/// (`SQLITE_TRANSIENT`), so no Swift value has to outlive its `bind` call.
struct ParameterBinder {
    private let statement: Statement
    private var index: CInt = 0

    private var handle: SQLiteStatement { statement.sqliteStatement }

    /// Resets `statement` for a new run and clears what an earlier run bound.
    init(_ statement: Statement) throws {
        self.statement = statement
        try check(sqlite3_reset(handle))
        try check(sqlite3_clear_bindings(handle))
    }

    mutating func bind(_ text: String?) throws {
        index += 1
        guard let text else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_text(handle, index, text, -1, transient))
    }

    mutating func bind(_ integer: Int64?) throws {
        index += 1
        guard let integer else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_int64(handle, index, integer))
    }

    mutating func bind(_ integer: Int?) throws {
        try bind(integer.map(Int64.init))
    }

    mutating func bind(_ double: Double?) throws {
        index += 1
        guard let double else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_double(handle, index, double))
    }

    /// A UUID as its 16 bytes, the form the store indexes (see `UUID.bytes`).
    mutating func bind(_ uuid: UUID) throws {
        index += 1
        let code = withUnsafeBytes(of: uuid.uuid) { sqlite3_bind_blob(handle, index, $0.baseAddress, 16, transient) }
        try check(code)
    }

    mutating func bind(_ blob: Data) throws {
        index += 1
        let code = blob.withUnsafeBytes { bytes in
            // An empty buffer has no address, and a NULL address would bind SQL NULL instead of an empty blob.
            bytes.isEmpty
                ? sqlite3_bind_zeroblob(handle, index, 0)
                : sqlite3_bind_blob(handle, index, bytes.baseAddress, CInt(bytes.count), transient)
        }
        try check(code)
    }

    /// Runs the statement to completion; every parameter must have been bound.
    func execute() throws {
        let expected = sqlite3_bind_parameter_count(handle)
        guard index == expected else {
            throw DatabaseError(message: "bound \(index) of \(expected) parameters", sql: statement.sql)
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    private func check(_ code: CInt) throws {
        guard code == SQLITE_OK else { throw error(code) }
    }

    private func error(_ code: CInt) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))),
            sql: statement.sql
        )
    }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bytes before the bind call returns.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
