import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// A request a test sends over a real connection, with APNs' headers filled in unless overridden.
struct Push {
    var token: String
    var topic: String? = TestGateway.topic
    var jwt: String?
    var pushType: PushType? = .alert
    var priority: Int?
    var expiration: Int64?
    var collapseID: String?
    var apnsID: String?
    var extraHeaders: [(name: String, value: String)] = []
    var path: String?
    var method = "POST"
    var body = Data(#"{"aps":{"alert":{"title":"Hello","body":"World"}}}"#.utf8)

    var headers: [(name: String, value: String)] {
        var headers = APNsConnection.notificationHeaders(
            token: token, topic: topic, jwt: jwt, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseID, apnsID: apnsID
        )
        headers[0].value = method
        if let path { headers[2].value = path }
        return headers + extraHeaders
    }
}

extension TestGateway {
    /// A push to a fresh device of the default app, signed with the default key.
    func push(_ change: (inout Push) -> Void = { _ in }) async throws -> Push {
        var push = Push(token: try await issueToken(), jwt: defaultJWT)
        change(&push)
        return push
    }
}

extension APNsConnection {
    func send(_ push: Push) async throws -> APNsResponse {
        try await send(headers: push.headers, body: push.body)
    }
}

/// One way to make the gateway answer with one reason.
struct Scenario: Sendable, CustomTestStringConvertible {
    var reason: APNsReason
    var configure: @Sendable (inout GatewayConfiguration) -> Void = { _ in }
    var run: @Sendable (TestGateway) async throws -> APNsResponse

    var testDescription: String { reason.rawValue }

    /// The scenario's request on a new connection.
    static func single(
        _ reason: APNsReason,
        configure: @escaping @Sendable (inout GatewayConfiguration) -> Void = { _ in },
        _ build: @escaping @Sendable (TestGateway) async throws -> Push
    ) -> Scenario {
        Scenario(reason: reason, configure: configure) { gateway in
            let push = try await build(gateway)
            let connection = try await gateway.connect()
            defer { Task { await connection.close() } }
            return try await connection.send(push)
        }
    }
}
