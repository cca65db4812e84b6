import Foundation
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import PostgresNIO
import Testing

@testable import HeraldPostgres

/// What the store does when PostgreSQL goes away, is slow or is busy: calls fail within their deadline (a provider
/// gets its 503 rather than a request that hangs), and the store recovers by itself once the server is back.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct PostgresOutageTests {
    private static func configuration(timeout: Duration) -> PostgresStore.Configuration {
        var configuration = PostgresTesting.configuration
        configuration.requestTimeout = timeout
        return configuration
    }

    private static func notification() -> StoredNotification {
        StoredNotification(
            apnsID: UUID(), uniqueID: UUID(), deviceToken: DeviceToken.random(), bundleID: "com.example.outage", topic: "com.example.outage",
            pushType: .alert, priority: .immediate, expiration: nil, collapseID: nil, payload: Data("{}".utf8), receivedAt: Date())
    }

    /// A server of the test's own is stopped (`pg_ctl stop`) and started again.
    @Test func callsFailFastWhileTheServerIsDownAndTheStoreRecoversWhenItIsBack() async throws {
        let server = try await ThrowawayPostgresServer.start()
        do {
            try await Self.outage(on: server)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    private static func outage(on server: ThrowawayPostgresServer) async throws {
        let url = PostgresTestDatabase.replacingDatabase(of: server.url, with: "postgres")
        let endpoint = try PostgresURL(url).endpoint
        let store = try await PostgresStore(
            url: url, nodeID: "node-one", configuration: configuration(timeout: .seconds(5)), logger: PostgresTesting.logger)
        let heard = CommitNoticeLog(store.commitNotices())
        defer { heard.stop() }
        #expect(await heard.wait { $0 == [.resynchronize] })
        let before = try await store.insertNotifications([notification()])
        #expect(await heard.wait { $0.count == 2 })

        try await server.halt()
        for call in ["insert", "read"] {
            let started = ContinuousClock.now
            let error = await #expect(throws: StoreError.self, "\(call)") {
                if call == "insert" { _ = try await store.insertNotifications([notification()]) } else { _ = try await store.keys() }
            }
            let took = ContinuousClock.now - started
            #expect(error?.code == .unavailable, "\(call)")
            #expect(error?.message.contains("cannot reach PostgreSQL at \(endpoint): ") == true, "\(error?.message ?? "")")
            // Not at the 5 s deadline: after half a second without a connection, a probe finds the server refusing
            // connections (room for a loaded machine).
            #expect(took < .seconds(4), "\(call) failed after \(took)")
        }

        try await server.resume()
        let resumed = ContinuousClock.now
        var after: [StoredNotification] = []
        while after.isEmpty, ContinuousClock.now - resumed < .seconds(30) {
            do {
                after = try await store.insertNotifications([notification()])
            } catch {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let afterID = try #require(after.first?.id, "the store recovered within 30 s")
        #expect(afterID > (before[0].id ?? 0))
        // The commit notices' connection came back too, saying that notices may have been missed (the commit above
        // may have been), and hears the commits from then on.
        #expect(await heard.wait { $0.filter { $0 == .resynchronize }.count == 2 })
        let lastID = try #require(try await store.insertNotifications([notification()]).first?.id)
        #expect(await heard.wait { $0.last == .committed(nodeID: "node-one", ids: lastID...lastID) })
        let notices = heard.heard
        #expect(notices.first == .resynchronize && notices[1] == .committed(nodeID: "node-one", ids: before[0].id!...before[0].id!))
        await store.close()
    }

    /// A call that gets a connection but no answer fails at its deadline, and the connection it held is closed (the
    /// pool makes another).
    @Test func aCallTheServerDoesNotAnswerFailsAtItsDeadline() async throws {
        try await PostgresTesting.withDatabase { database, _ in
            let store = try await PostgresStore(
                url: database.url, nodeID: "node", configuration: Self.configuration(timeout: .seconds(1)), logger: PostgresTesting.logger)
            let started = ContinuousClock.now
            let error = await #expect(throws: StoreError.self) {
                try await store.withConnection("sleep") { connection in
                    _ = try await connection.query("SELECT pg_sleep(10)", logger: PostgresTesting.logger).collect()
                }
            }
            #expect(ContinuousClock.now - started < .seconds(8))
            #expect(error?.code == .unavailable)
            #expect(error?.message.hasSuffix("did not answer within 1.0 seconds") == true, "\(error?.message ?? "")")
            try await Self.expectAnswers(store)
            await store.close()
        }
    }

    /// Every connection in use past the deadline: `.busy`, and a retry may succeed.
    @Test func aCallThatGetsNoConnectionOfABusyPoolIsBusy() async throws {
        try await PostgresTesting.withDatabase { database, _ in
            var configuration = Self.configuration(timeout: .seconds(1))
            configuration.maximumConnections = 1
            let store = try await PostgresStore(url: database.url, nodeID: "node", configuration: configuration, logger: PostgresTesting.logger)
            let (held, release) = AsyncStream.makeStream(of: Void.self)
            let (acquired, acquire) = AsyncStream.makeStream(of: Void.self)
            // The pool's one connection, held (past any deadline) until released.
            let holding = Task {
                try await store.client.withConnection { _ in
                    acquire.yield()
                    for await _ in held { break }
                }
            }
            for await _ in acquired { break }
            let error = await #expect(throws: StoreError.self) { try await store.keys() }
            #expect(error?.code == .busy)
            #expect(error?.message.contains("all 1 connections to PostgreSQL at") == true, "\(error?.message ?? "")")
            release.finish()
            try await holding.value
            try await Self.expectAnswers(store)
            await store.close()
        }
    }

    /// A lock another transaction holds past `lock_timeout` (half the deadline, 1.5 s here): `.busy`.
    @Test func aCommitKeptWaitingForTheCommitLockIsBusy() async throws {
        try await PostgresTesting.withDatabase { database, _ in
            let store = try await PostgresStore(
                url: database.url, nodeID: "node", configuration: Self.configuration(timeout: .seconds(3)), logger: PostgresTesting.logger)
            try await database.withConnection { connection in
                // Another node's commit that does not end.
                _ = try await connection.query("BEGIN", logger: PostgresTesting.logger).collect()
                _ = try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.commitLock))", logger: PostgresTesting.logger).collect()
                let error = await #expect(throws: StoreError.self) { try await store.insertNotifications([Self.notification()]) }
                #expect(error?.code == .busy)
                #expect(error?.message.contains("canceling statement due to lock timeout (SQLSTATE 55P03)") == true, "\(error?.message ?? "")")
                _ = try await connection.query("ROLLBACK", logger: PostgresTesting.logger).collect()
            }
            #expect(try await store.insertNotifications([Self.notification()]).count == 1)
            await store.close()
        }
    }

    /// A call whose task is cancelled returns at once, saying so, even from a wait no one can cancel (a query).
    @Test func aCancelledCallReturnsAtOnce() async throws {
        try await PostgresTesting.withStore { store, _ in
            let (querying, query) = AsyncStream.makeStream(of: Void.self)
            let call = Task {
                try await store.withConnection("sleep") { connection in
                    query.yield()
                    _ = try await connection.query("SELECT pg_sleep(3)", logger: PostgresTesting.logger).collect()
                }
            }
            for await _ in querying { break }
            let started = ContinuousClock.now
            call.cancel()
            let error = await #expect(throws: StoreError.self) { try await call.value }
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(error?.message == "cannot sleep: the call was cancelled")
        }
    }

    /// Expects `store` to answer a read again within 10 seconds. With a 1 s deadline, one read can miss it on a loaded
    /// machine while the pool opens a new connection; what must not happen is that the store never answers.
    private static func expectAnswers(_ store: PostgresStore, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        var lastError = ""
        while ContinuousClock.now < deadline {
            let keys: [ProviderKey]
            do {
                keys = try await store.keys()
            } catch {
                lastError = "\(error)"
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            #expect(keys.isEmpty, sourceLocation: sourceLocation)
            return
        }
        Issue.record("the store did not answer within 10 seconds: \(lastError)", sourceLocation: sourceLocation)
    }

}
