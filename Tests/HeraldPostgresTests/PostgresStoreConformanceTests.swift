import HeraldPostgres
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import Testing

/// The PostgreSQL store passes the suites every store and every cluster store must: each behaviour on a database of
/// its own.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct PostgresStoreConformanceTests {
    @Test(arguments: StoreConformance.Behaviour.allCases)
    func conformsToStore(_ behaviour: StoreConformance.Behaviour) async throws {
        try await PostgresTesting.withStore { store, _ in try await behaviour.check(store) }
    }

    @Test(arguments: ClusterStoreConformance.Behaviour.allCases)
    func conformsToClusterStore(_ behaviour: ClusterStoreConformance.Behaviour) async throws {
        try await PostgresTesting.withDatabase { _, makeStore in try await behaviour.check { try await makeStore($0) } }
    }
}
