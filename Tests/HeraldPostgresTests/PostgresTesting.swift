import Foundation
import HeraldPostgres
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import Logging

/// Stores on fresh databases of the test server, closed and dropped after the test body, whatever it threw.
enum PostgresTesting {
    static let logger = Logger(label: "herald-postgres-test") { _ in SwiftLogNoOpLogHandler() }

    /// The configuration tests use: a node whose lease ran out is removed at once (no minute's retention).
    static var configuration: PostgresStore.Configuration {
        var configuration = PostgresStore.Configuration()
        configuration.expiredNodeRetention = .zero
        return configuration
    }

    /// Runs `body` with a fresh database, and stores on it that `body` makes (all closed afterwards).
    static func withDatabase<Value>(
        _ body: (PostgresTestDatabase, _ makeStore: @escaping @Sendable (String) async throws -> PostgresStore) async throws -> Value
    ) async throws -> Value {
        let database = try await PostgresTestDatabase.create()
        let opened = OpenedStores()
        let url = database.url
        let makeStore: @Sendable (String) async throws -> PostgresStore = { nodeID in
            let store = try await PostgresStore(url: url, nodeID: nodeID, configuration: configuration, logger: logger)
            await opened.add(store)
            return store
        }
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await body(database, makeStore))
        } catch {
            outcome = .failure(error)
        }
        await opened.closeAll()
        try await database.drop()
        return try outcome.get()
    }

    /// Runs `body` with one store on a fresh database.
    static func withStore<Value>(_ body: (PostgresStore, PostgresTestDatabase) async throws -> Value) async throws -> Value {
        try await withDatabase { database, makeStore in try await body(makeStore("node-test"), database) }
    }
}

private actor OpenedStores {
    private var stores: [PostgresStore] = []

    func add(_ store: PostgresStore) { stores.append(store) }

    func closeAll() async {
        for store in stores { await store.close() }
        stores = []
    }
}
