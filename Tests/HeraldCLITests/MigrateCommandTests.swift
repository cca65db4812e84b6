import ArgumentParser
import Foundation
import HeraldPostgresTesting
import HeraldTesting
import Testing

@testable import HeraldCLI

/// `herald migrate --store postgres://…`, run as a person would.
@Suite struct MigrateCommandTests {
    @Test(.enabled(if: PostgresTestDatabase.isConfigured))
    func migrateBringsTheSchemaUpToDateAndSaysSo() async throws {
        let database = try await PostgresTestDatabase.create()
        let first = try await CommandRunTests.run(["migrate", "--store", database.url])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.range(of: #"^schema at version \d+ \(was 0\)\n$"#, options: .regularExpression) != nil, "\(first.output)")
        let again = try await CommandRunTests.run(["migrate", "--store", database.url])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.output.range(of: #"^schema already at version \d+\n$"#, options: .regularExpression) != nil, "\(again.output)")
        try await database.drop()
    }

    @Test func anUnreachableServerIsSaidAndTheCommandFails() async throws {
        let port = try LoopbackPort.unused()
        let run = try await CommandRunTests.run(["migrate", "--store", "postgres://herald:secret@127.0.0.1:\(port)/herald"])
        #expect(run.status != 0)
        #expect(run.error.contains("Error: cannot open the store: cannot reach PostgreSQL at 127.0.0.1:\(port): connection refused"), "\(run.error)")
        #expect(!run.error.contains("secret"))
    }

    @Test func aStoreThatIsNotAPostgresURLIsExplained() {
        let messages = [
            ["migrate", "--store", "sqlite"], ["migrate", "--store", "postgres://herald@db"], ["migrate"],
        ].map { arguments in
            do {
                _ = try HeraldCommand.parseAsRoot(arguments)
                return ""
            } catch {
                return HeraldCommand.message(for: error)
            }
        }
        #expect(messages[0].contains("--store takes a postgres:// URL; the SQLite store updates its schema itself when opened"))
        #expect(messages[1].contains("the store URL postgres://herald@db has no database name"))
        #expect(messages[2].contains("--store"))
    }
}
