import ArgumentParser
import HeraldPostgres
import HeraldStore
import Logging

/// `herald migrate`: brings a PostgreSQL store's schema up to this version of herald, ahead of starting the nodes
/// that share it (each node also does when it starts).
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a PostgreSQL store's schema up to date.",
        discussion: """
            Nodes starting together take turns, so running this first is not required; it tells, before any node starts, \
            whether the database is reachable and at a version this herald knows. The SQLite store updates itself when opened.
            """
    )

    @Option(help: "The store: postgres://USER:PASSWORD@HOST:PORT/DATABASE[?sslmode=require|verify-full].")
    var store: String

    func validate() throws {
        guard store.lowercased().hasPrefix("postgres://") || store.lowercased().hasPrefix("postgresql://") else {
            throw ValidationError("--store takes a postgres:// URL; the SQLite store updates its schema itself when opened")
        }
        do {
            _ = try PostgresURL(store)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let versions: (from: Int, to: Int)
        do {
            versions = try await PostgresStore.migrate(url: store, logger: Logger(label: "herald"))
        } catch {
            throw ValidationError(error.message)
        }
        print(versions.from == versions.to ? "schema already at version \(versions.to)" : "schema at version \(versions.to) (was \(versions.from))")
    }
}
