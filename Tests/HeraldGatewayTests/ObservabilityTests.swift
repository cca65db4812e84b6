import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `/healthz`, `/metrics` and logs that never carry secrets.
@Suite struct ObservabilityTests {
    private func get(_ path: String, port: Int) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func healthAndMetricsOnTheConsolePort() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        #expect(try await connection.send(try await gateway.push()).status == 200)
        #expect(try await connection.send(try await gateway.push { $0.priority = 3 }).status == 400)
        let port = try await gateway.gateway.consolePort()

        let (healthStatus, health) = try await get("/healthz", port: port)
        #expect(healthStatus == 200)
        #expect(health == "ok\n")

        let (metricsStatus, metrics) = try await get("/metrics", port: port)
        #expect(metricsStatus == 200)
        #expect(metrics.contains("herald_notifications_accepted_total 1"))
        #expect(metrics.contains(#"herald_notifications_rejected_total{reason="BadPriority"} 1"#))
        #expect(metrics.contains("herald_provider_request_duration_seconds_count 2"))
        #expect(metrics.contains("herald_provider_open_connections 1"))
        try await gateway.stop()
    }

    @Test func logsNeverCarryTokensJWTsOrPayloads() async throws {
        let capture = LogCapture()
        let gateway = try await TestGateway.start(logger: capture.logger())
        let secretBody = #"{"aps":{"alert":"secret-payload-text"}}"#
        let connection = try await gateway.connect()
        let push = try await gateway.push { $0.body = Data(secretBody.utf8) }
        #expect(try await connection.send(push).status == 200)
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.token = DeviceToken.random().hex
                    $0.body = Data(secretBody.utf8)
                }
            ).status == 400)
        let forged = try await gateway.push { $0.jwt = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJYIn0.c2ln" }
        #expect(try await gateway.connect().send(forged).status == 403)
        (gateway.store as? FaultInjectingStore)?.setFailWrites(.corrupt)
        #expect(try await connection.send(push).status == 500)
        try await gateway.stop()

        let logs = capture.text
        #expect(logs.contains("rejected"))  // the capture really saw the gateway's logs
        #expect(!logs.contains(push.token))
        #expect(!logs.contains(gateway.defaultJWT))
        #expect(!logs.contains("eyJ"))
        #expect(!logs.contains("secret-payload-text"))
    }
}
