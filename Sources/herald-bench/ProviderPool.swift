import Foundation
import HeraldClient
import HeraldWire
import Synchronization

/// A few HTTP/2 connections to the provider API, used round-robin. Each connection sends one request on
/// its own first, as APNs clients must: the gateway allows one stream until a token has been accepted.
final class ProviderPool: Sendable {
    private let connections: [APNsConnection]
    private let options: ProviderOptions
    private let authority: String
    private let next = Atomic<Int>(0)

    private init(connections: [APNsConnection], options: ProviderOptions, authority: String) {
        self.connections = connections
        self.options = options
        self.authority = authority
    }

    static func open(_ options: ProviderOptions, warmUpToken: String) async throws -> ProviderPool {
        guard let url = URL(string: options.provider) else { throw BenchError("--provider \(options.provider) is not a URL") }
        var connections: [APNsConnection] = []
        for _ in 0..<max(1, options.connections) {
            connections.append(try await APNsConnection.connect(to: url, trusting: options.ca))
        }
        let pool = ProviderPool(connections: connections, options: options, authority: url.host ?? "localhost")
        for connection in connections {
            let response = try await pool.send(on: connection, token: warmUpToken, apnsID: nil, body: Data(#"{"aps":{"alert":"warm-up"}}"#.utf8))
            guard response.status == 200 else {
                throw BenchError("the warm-up request got \(response.status) \(response.reason?.rawValue ?? "")")
            }
        }
        return pool
    }

    /// Sends one notification on the next connection.
    func send(token: String, apnsID: String?, body: Data, collapseID: String? = nil) async throws -> APNsResponse {
        let index = next.add(1, ordering: .relaxed).oldValue % connections.count
        return try await send(on: connections[index], token: token, apnsID: apnsID, body: body, collapseID: collapseID)
    }

    private func send(on connection: APNsConnection, token: String, apnsID: String?, body: Data, collapseID: String? = nil) async throws
        -> APNsResponse
    {
        let headers = APNsConnection.notificationHeaders(
            token: token, topic: options.topic, jwt: options.jwt, collapseID: collapseID, apnsID: apnsID, authority: authority
        )
        return try await connection.send(headers: headers, body: body, deadline: .seconds(10))
    }

    func close() async {
        for connection in connections { await connection.close() }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
