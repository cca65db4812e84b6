import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import PostgresNIO
import Testing

@testable import HeraldPostgres

/// The schema's versions: applied once however many nodes start together, and a newer one refused.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct PostgresSchemaTests {
    @Test func migrateBringsAnEmptyDatabaseToTheLatestVersionOnce() async throws {
        try await PostgresTesting.withDatabase { database, _ in
            let latest = PostgresSchema.latestVersion
            #expect(latest >= 2)
            let first = try await PostgresStore.migrate(url: database.url, logger: PostgresTesting.logger)
            #expect(first.from == 0 && first.to == latest)
            let again = try await PostgresStore.migrate(url: database.url, logger: PostgresTesting.logger)
            #expect(again.from == latest && again.to == latest)
            let version = try await database.query("SELECT version FROM herald_schema").map { try $0.decode(Int.self) }
            #expect(version == [latest])
        }
    }

    /// Nodes starting together on an empty database take turns under the advisory lock: one migrates, the others
    /// find the schema done.
    @Test func concurrentMigrationsOfAnEmptyDatabaseDoNotRace() async throws {
        try await PostgresTesting.withDatabase { database, makeStore in
            let url = database.url
            let results = try await withThrowingTaskGroup(of: (from: Int, to: Int).self) { group in
                for _ in 0..<6 {
                    group.addTask { try await PostgresStore.migrate(url: url, logger: PostgresTesting.logger) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let latest = PostgresSchema.latestVersion
            #expect(results.filter { $0 == (0, latest) }.count == 1)
            #expect(results.filter { $0 == (latest, latest) }.count == 5)
            // Stores starting together too.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<4 { group.addTask { _ = try await makeStore("node-\(index)") } }
                try await group.waitForAll()
            }
        }
    }

    @Test func aDatabaseMigratedByANewerHeraldIsRefused() async throws {
        try await PostgresTesting.withDatabase { database, makeStore in
            _ = try await PostgresStore.migrate(url: database.url, logger: PostgresTesting.logger)
            let newer = PostgresSchema.latestVersion + 1
            _ = try await database.query("UPDATE herald_schema SET version = \(newer)")
            for attempt in ["migrate", "store"] {
                let error = await #expect(throws: StoreError.self, "\(attempt)") {
                    if attempt == "migrate" {
                        _ = try await PostgresStore.migrate(url: database.url, logger: PostgresTesting.logger)
                    } else {
                        _ = try await makeStore("node")
                    }
                }
                #expect(error?.code == .unavailable)
                #expect(
                    error?.message.contains(
                        "is at schema version \(newer), newer than this herald knows (\(PostgresSchema.latestVersion)): a newer herald migrated it")
                        == true, "\(error?.message ?? "")")
            }
        }
    }

    @Test func aServerThatIsNotThereIsSaidInWords() async throws {
        let port = try LoopbackPort.unused()
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) {
            try await PostgresStore.migrate(url: "postgres://herald@127.0.0.1:\(port)/herald", logger: PostgresTesting.logger)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "cannot open the store: cannot reach PostgreSQL at 127.0.0.1:\(port): connection refused")
        #expect(ContinuousClock.now - started < .seconds(8))
    }

    @Test func aDatabaseThatDoesNotExistIsSaidInWords() async throws {
        let server = try #require(PostgresTestDatabase.serverURL)
        let url = PostgresTestDatabase.replacingDatabase(of: server, with: "herald_no_such_database")
        let error = await #expect(throws: StoreError.self) {
            try await PostgresStore(url: url, nodeID: "node", logger: PostgresTesting.logger)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("cannot reach PostgreSQL at") == true)
        #expect(error?.message.contains(#"database "herald_no_such_database" does not exist (SQLSTATE 3D000)"#) == true, "\(error?.message ?? "")")
    }
}
