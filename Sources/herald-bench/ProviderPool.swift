import Foundation
import HeraldClient
import HeraldWire
import Synchronization

/// A few HTTP/2 connections to the provider API, used round-robin. Each connection sends one request on
/// its own first, as APNs clients must: the gateway allows one stream until a token has been accepted.
///
/// With `reconnect`, a connection found closed (its gateway died, or a load balancer dropped it) is replaced by a
/// new one to the same address — behind a load balancer, another node — before the next request on it; requests
/// that were in flight on the lost connection fail and are not sent again.
final class ProviderPool: Sendable {
    /// The connections, and the replacements being made for lost ones (by index).
    private struct Slots {
        var connections: [APNsConnection] = []
        var replacing: [Int: Task<APNsConnection, any Error>] = [:]
    }

    private let slots = Mutex(Slots())
    private let url: URL
    private let options: ProviderOptions
    private let authority: String
    private let warmUpToken: String
    private let reconnect: Bool
    private let next = Atomic<Int>(0)

    /// How long a replacement connection may take to be made, retrying, before requests on it fail for good.
    static let reconnectTimeout = Duration.seconds(60)

    private init(url: URL, options: ProviderOptions, warmUpToken: String, reconnect: Bool) {
        self.url = url
        self.options = options
        self.authority = url.host ?? "localhost"
        self.warmUpToken = warmUpToken
        self.reconnect = reconnect
    }

    static func open(_ options: ProviderOptions, warmUpToken: String, reconnect: Bool = false) async throws -> ProviderPool {
        guard let url = URL(string: options.provider) else { throw BenchError("--provider \(options.provider) is not a URL") }
        let pool = ProviderPool(url: url, options: options, warmUpToken: warmUpToken, reconnect: reconnect)
        var connections: [APNsConnection] = []
        for _ in 0..<max(1, options.connections) {
            connections.append(try await pool.connect())
        }
        pool.slots.withLock { $0.connections = connections }
        return pool
    }

    /// A new connection, its warm-up request answered 200.
    private func connect() async throws -> APNsConnection {
        let connection = try await APNsConnection.connect(to: url, trusting: options.ca)
        do {
            let response = try await send(on: connection, token: warmUpToken, apnsID: nil, body: Data(#"{"aps":{"alert":"warm-up"}}"#.utf8))
            guard response.status == 200 else {
                throw BenchError("the warm-up request got \(response.status) \(response.reason?.rawValue ?? "")")
            }
            return connection
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Sends one notification on the next connection.
    func send(token: String, apnsID: String?, body: Data, collapseID: String? = nil) async throws -> APNsResponse {
        let (index, current) = slots.withLock { slots in
            let index = next.add(1, ordering: .relaxed).oldValue % slots.connections.count
            return (index, slots.connections[index])
        }
        var connection = current
        if reconnect, !connection.isActive { connection = try await replacement(for: connection, at: index) }
        return try await send(on: connection, token: token, apnsID: apnsID, body: body, collapseID: collapseID)
    }

    /// The connection in place of `lost` at `index`: made once however many requests find it lost, retrying (the
    /// gateway may be unreachable or answer 503 for a while) for up to ``reconnectTimeout``.
    private func replacement(for lost: APNsConnection, at index: Int) async throws -> APNsConnection {
        let pending: Task<APNsConnection, any Error> = slots.withLock { slots in
            if slots.connections[index] !== lost { return Task { [current = slots.connections[index]] in current } }
            if let replacing = slots.replacing[index] { return replacing }
            let replacing = Task {
                defer { self.slots.withLock { $0.replacing[index] = nil } }
                let fresh = try await self.connectRetrying()
                self.slots.withLock { $0.connections[index] = fresh }
                return fresh
            }
            slots.replacing[index] = replacing
            return replacing
        }
        return try await pending.value
    }

    private func connectRetrying() async throws -> APNsConnection {
        let deadline = ContinuousClock.now + Self.reconnectTimeout
        while true {
            do {
                return try await connect()
            } catch {
                if ContinuousClock.now >= deadline { throw ReconnectFailed(reason: "\(error)") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
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
        for connection in slots.withLock({ $0.connections }) { await connection.close() }
    }

    /// No connection could be made in place of a lost one within ``reconnectTimeout``.
    struct ReconnectFailed: Error, CustomStringConvertible {
        var reason: String
        var description: String { "cannot reconnect to the provider API: \(reason)" }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
