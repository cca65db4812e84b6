import Foundation
import FoundationNetworking
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldPostgres
import HeraldPostgresTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import Testing

/// A node whose PostgreSQL goes away and comes back: a server of the test's own, stopped and started again.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured)) struct ClusterOutageTests {
    private func healthz(_ gateway: TestGateway) async throws -> (status: Int, text: String) {
        let port = try await gateway.gateway.consolePort()
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    private func push(_ gateway: TestGateway, to token: String) async throws -> APNsResponse {
        var push = Push(token: token, jwt: gateway.defaultJWT)
        push.body = Data(#"{"aps":{"alert":"are you there"}}"#.utf8)
        let connection = try await gateway.connect()
        let response = try await connection.send(push)
        await connection.close()
        return response
    }

    @Test func whilePostgreSQLIsDownProvidersGet503AndHealthzSaysNotReadyUntilItIsBack() async throws {
        let server = try await ThrowawayPostgresServer.start()
        var configuration = PostgresStore.Configuration()
        configuration.requestTimeout = .seconds(1)
        let store = try await PostgresStore(
            url: server.url, nodeID: UUID().uuidString, configuration: configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let gateway = try await TestGateway.start(store: store) { $0.heartbeatInterval = .milliseconds(200) }
        let token = try await gateway.issueToken()
        #expect(try await push(gateway, to: token).status == 200)
        #expect(try await healthz(gateway) == (200, "ok\n"))

        try await server.halt()
        let refused = try await push(gateway, to: token)
        #expect(refused.status == 503)
        #expect(refused.reason == .serviceUnavailable)
        try await waitUntil { try await healthz(gateway).status == 503 }
        #expect(try await healthz(gateway).text.hasPrefix("not ready: cannot reach the store"))

        try await server.resume()
        try await waitUntil { try await healthz(gateway).status == 200 }
        try await waitUntil { try await push(gateway, to: token).status == 200 }
        // Nothing answered 503 was stored: the store holds the 200s only (the first, and the one that ended the wait).
        let stored = try await store.notifications(matching: .deviceTokenPrefix(token), before: nil, limit: 10)
        #expect(!stored.contains { $0.apnsID == APNsID.parse(refused.apnsID ?? "") })

        try await gateway.stop()
        await store.close()
        try await server.stop()
    }
}
