import Foundation
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import PostgresNIO
import Testing

@testable import HeraldPostgres

/// Each kind of failure becomes one ``StoreError``, once, with what a person needs to know and nothing of the query's
/// parameters.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct PostgresErrorTests {
    @Test func aRowThatCannotBeReadIsCorrupt() async throws {
        try await PostgresTesting.withStore { store, _ in
            let wrongType = await #expect(throws: StoreError.self) {
                try await store.rows("read a number", "SELECT 'text'::text") { row in try row.next(Int64.self) }
            }
            #expect(wrongType?.code == .corrupt)
            #expect(wrongType?.message.hasPrefix("cannot read a number: a row PostgreSQL at ") == true, "\(wrongType?.message ?? "")")
            let missing = await #expect(throws: StoreError.self) {
                try await store.rows("read two numbers", "SELECT 1::bigint") { row in (try row.next(Int64.self), try row.next(Int64.self)) }
            }
            #expect(missing?.code == .corrupt && missing?.message == "a row has fewer columns than the store reads")
        }
    }

    @Test func whatTheServerRefusesIsSaidWithItsSQLState() async throws {
        try await PostgresTesting.withStore { store, _ in
            let error = await #expect(throws: StoreError.self) { try await store.execute("misspell", "SELEC 1") }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains(#"cannot misspell: PostgreSQL at "#) == true)
            #expect(error?.message.hasSuffix(#"said: syntax error at or near "SELEC" (SQLSTATE 42601)"#) == true, "\(error?.message ?? "")")
        }
    }

    /// A connection the server ends (an administrator, a failover) fails the call as unreachable; the next call has a
    /// new connection.
    @Test func aConnectionTheServerEndsIsUnreachable() async throws {
        try await PostgresTesting.withStore { store, database in
            let call = Task {
                try await store.withConnection("wait") { connection in
                    _ = try await connection.query("SELECT pg_sleep(3), 'herald-terminate-me'", logger: PostgresTesting.logger).collect()
                }
            }
            var ended = 0
            while ended == 0 {
                try await Task.sleep(for: .milliseconds(20))
                ended =
                    try await database.query(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE '%herald-terminate' || '-me%' AND pid <> pg_backend_pid()"
                    ).first?.decode(Int.self) ?? 0
            }
            let error = await #expect(throws: StoreError.self) { try await call.value }
            #expect(error?.code == .unavailable)
            #expect(
                error?.message.contains("cannot reach PostgreSQL at") == true
                    && error?.message.hasSuffix("terminating connection due to administrator command (SQLSTATE 57P01)") == true,
                "\(error?.message ?? "")")
            #expect(try await store.keys().isEmpty)
        }
    }

    /// A server that takes the connection and never answers (hung, or not PostgreSQL): the store fails to start within
    /// its deadline.
    @Test func aServerThatNeverAnswersFailsTheStartInTime() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        var configuration = PostgresTesting.configuration
        configuration.connectTimeout = .seconds(1)
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) {
            try await PostgresStore(
                url: "postgres://herald@127.0.0.1:\(silent.port)/herald", nodeID: "node", configuration: configuration, logger: PostgresTesting.logger
            )
        }
        #expect(ContinuousClock.now - started < .seconds(8))
        #expect(error?.message == "cannot open the store: cannot reach PostgreSQL at 127.0.0.1:\(silent.port): no answer within 1000 ms")
    }

    /// The test server has no TLS: a URL that requires it is refused, saying why.
    @Test func aURLThatRequiresTLSOfAServerWithoutIt() async throws {
        let server = try #require(PostgresTestDatabase.serverURL)
        let error = await #expect(throws: StoreError.self) {
            try await PostgresStore(url: server + "?sslmode=require", nodeID: "node", logger: PostgresTesting.logger)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.hasSuffix("the server does not offer TLS, which the URL's sslmode requires") == true, "\(error?.message ?? "")")
    }
}

/// A loopback port whose connections the kernel accepts and nothing ever answers.
private struct SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard listening else { throw POSIXError(.EADDRINUSE) }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
