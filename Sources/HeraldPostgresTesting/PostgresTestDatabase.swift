import Foundation
import HeraldPostgres
import HeraldStore
import Logging
public import PostgresNIO

/// A fresh database on the test PostgreSQL server, for one test.
///
/// The server is the one `HERALD_TEST_POSTGRES_URL` names (a maintenance URL, as
/// `postgres://herald@127.0.0.1:PORT/postgres`); `scripts/test.sh` starts a throwaway one
/// (`scripts/postgres-test-server.sh`) and sets it. Tests that need it say so:
///
/// ```swift
/// @Test(.enabled(if: PostgresTestDatabase.isConfigured))
/// func somethingOnPostgres() async throws {
///     let database = try await PostgresTestDatabase.create()
///     let store = try await PostgresStore(url: database.url, nodeID: "node", logger: logger)
///     …
///     await store.close()
///     try await database.drop()
/// }
/// ```
///
/// A test that fails before its `drop()` leaves its database behind; the throwaway server goes with all of them.
public struct PostgresTestDatabase: Sendable {
    /// `herald_test_` and 16 random hex digits.
    public let name: String
    /// The database's URL, for a store.
    public let url: String

    /// The test server's maintenance URL, from `HERALD_TEST_POSTGRES_URL`.
    public static var serverURL: String? {
        ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether a test server is there to test against.
    public static var isConfigured: Bool { serverURL != nil }

    private static let logger = Logger(label: "herald-test-postgres") { _ in SwiftLogNoOpLogHandler() }

    /// Creates a database of its own on the test server.
    public static func create() async throws -> PostgresTestDatabase {
        guard let serverURL else { throw StoreError(.unavailable, "HERALD_TEST_POSTGRES_URL is not set: run scripts/test.sh") }
        let name = "herald_test_" + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
        try await withConnection(to: serverURL) { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger).collect()
        }
        return PostgresTestDatabase(name: name, url: replacingDatabase(of: serverURL, with: name))
    }

    /// Drops the database, ending the connections still open to it.
    public func drop() async throws {
        guard let serverURL = Self.serverURL else { return }
        try await Self.withConnection(to: serverURL) { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Self.logger)
                .collect()
        }
    }

    /// Runs `body` on a connection of its own to this database: for statements a test checks directly.
    public func withConnection<Value: Sendable>(_ body: (PostgresConnection) async throws -> Value) async throws -> Value {
        try await Self.withConnection(to: url, body)
    }

    /// The rows of `sql` on this database.
    public func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) async throws -> [PostgresRow] {
        try await withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect()
        }
    }

    private static func withConnection<Value: Sendable>(
        to url: String, _ body: (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let location = try PostgresURL(url)
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password, database: location.database,
            tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        do {
            let value = try await body(connection)
            try await connection.close()
            return value
        } catch let error as PSQLError {
            try? await connection.close()
            // PostgresNIO's description hides everything; a test's failure should say what the server said.
            throw QueryFailure(description: "PostgreSQL: \(error.serverInfo?[.message] ?? String(reflecting: error))")
        } catch {
            try? await connection.close()
            throw error
        }
    }

    private struct QueryFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// `url` with its path (the database) replaced by `name`.
    public static func replacingDatabase(of url: String, with name: String) -> String {
        let (beforeQuery, query) = url.firstIndex(of: "?").map { (url[..<$0], url[$0...]) } ?? (url[...], ""[...])
        guard let scheme = beforeQuery.range(of: "://"), let slash = beforeQuery[scheme.upperBound...].lastIndex(of: "/") else {
            return url + "/" + name
        }
        return beforeQuery[..<slash] + "/" + name + query
    }
}
