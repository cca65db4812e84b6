import ArgumentParser
import Foundation
import HeraldPostgres
import HeraldStore
import Logging

/// Where a gateway's store is, as `--store` and `HERALD_STORE` name it: `sqlite` (the data directory's file), a path to
/// a SQLite file, or a PostgreSQL database (`postgres://…`, `postgresql://…`).
struct StoreLocation: Sendable, Hashable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    var isPostgres: Bool { text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") }

    /// The store as a person reads it in a message: the data directory, the file, or the URL without its password.
    func name(in directory: DataDirectory) -> String {
        if isPostgres { return (try? PostgresURL(text).description) ?? "the PostgreSQL store" }
        return text == "sqlite" ? directory.path : text
    }

    /// Opens the store; a PostgreSQL store's schema is brought up to date first.
    ///
    /// - Parameters:
    ///   - nodeID: What a PostgreSQL store tells the other nodes this process is (a gateway node's id for each run).
    ///   - busyTimeout: How long a SQLite write waits for another process.
    func open(in directory: DataDirectory, nodeID: String, busyTimeout: Duration = .seconds(10), logger: Logger) async throws -> OpenedStore {
        guard isPostgres else {
            let path = text == "sqlite" ? directory.storePath : text
            return OpenedStore(store: try DataDirectoryOption.open(path, in: directory, busyTimeout: busyTimeout), close: {})
        }
        do {
            let store = try await PostgresStore(url: text, nodeID: nodeID, logger: logger)
            return OpenedStore(store: store, close: { await store.close() })
        } catch {
            throw ValidationError(error.message)  // "cannot open the store: cannot reach PostgreSQL at …"
        }
    }
}

/// A store a command opened, and how to let it go.
struct OpenedStore: Sendable {
    let store: any Store
    let close: @Sendable () async -> Void
}

/// `--store` and `--data-dir`, for the commands that read or write a gateway's keys, tokens and policies.
struct StoreOption: ParsableArguments {
    @OptionGroup var dataDirectory: DataDirectoryOption

    @Option(
        name: .customLong("store"),
        help:
            "The gateway's store: sqlite (the data directory's), a path to a SQLite file, or postgres://USER:PASS@HOST:PORT/DB. (default: $HERALD_STORE, else sqlite)"
    )
    var location: String?

    /// A command's output is its own: only the store's warnings and errors go to standard error.
    private static var logger: Logger {
        var logger = Logger(label: "herald")
        logger.logLevel = .warning
        return logger
    }

    var storeLocation: StoreLocation {
        StoreLocation(location ?? ProcessInfo.processInfo.environment["HERALD_STORE"].flatMap { $0.isEmpty ? nil : $0 } ?? "sqlite")
    }

    /// Runs `body` with the store open, then closes it. A command that adds something (`creating`) may be the first
    /// to use a data directory; one that acts on what is there (list, revoke, retire) wants an existing one, where a
    /// missing directory is a mistyped `--data-dir`.
    ///
    /// - Parameter body: Given the store and its name for messages ("in NAME").
    func withStore<Value>(creating: Bool, _ body: (any Store, String) async throws -> Value) async throws -> Value {
        let location = storeLocation
        let directory = dataDirectory.directory
        if !location.isPostgres {
            if creating {
                _ = try dataDirectory.prepare()
            } else if location.text == "sqlite", !FileManager.default.fileExists(atPath: directory.storePath) {
                throw ValidationError(
                    "no Herald data in \(directory.path): check --data-dir (`herald serve` and `herald keys create` create a data directory)"
                )
            }
        }
        let opened = try await location.open(
            in: directory, nodeID: "cli-\(ProcessInfo.processInfo.processIdentifier)", logger: Self.logger)
        do {
            let value = try await body(opened.store, location.name(in: directory))
            await opened.close()
            return value
        } catch {
            await opened.close()
            throw error
        }
    }
}
