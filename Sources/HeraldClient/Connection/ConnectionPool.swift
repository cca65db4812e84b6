import HeraldTLS
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The connections of one ``APNsClient``: picks one with free streams on the caller's event loop, else the
/// one with the most free streams, opens another (up to the maximum, spread over the event loops) when all
/// are busy, forgets closed ones, and drains them all on shutdown.
final class ConnectionPool: Sendable {
    private struct State {
        var connections: [PooledConnection] = []
        var connecting = 0
        /// The event loops of the connections being opened.
        var connectingLoops: [any EventLoop] = []
        var waiters: [CheckedContinuation<PooledConnection?, any Error>] = []
        var nextID = 0
        var isShutdown = false
    }

    private enum Decision {
        case use(PooledConnection)
        case connect(id: Int, on: any EventLoop)
        case wait
        case shutdown
    }

    private let state = Mutex(State())
    private let configuration: APNsClientConfiguration
    private let tls: NIOSSLContext?
    private let tokens: ProviderTokenCache?
    private let group: any EventLoopGroup
    private let logger: Logger

    init(configuration: APNsClientConfiguration, tls: NIOSSLContext?, tokens: ProviderTokenCache?, group: any EventLoopGroup, logger: Logger) {
        self.configuration = configuration
        self.tls = tls
        self.tokens = tokens
        self.group = group
        self.logger = logger
    }

    /// Connections that take requests now.
    var openConnections: Int {
        state.withLock { $0.connections.filter(\.isUsable).count }
    }

    /// A connection for one request, its load already counted; release it with ``release(_:)``.
    func lease() async throws -> PooledConnection {
        while true {
            switch decide() {
            case .use(let connection):
                return connection
            case .shutdown:
                throw APNsClientError(.shutdown, "the client has shut down")
            case .connect(let id, let eventLoop):
                return try await connect(id: id, on: eventLoop)
            case .wait:
                // Wait for the connection being opened; nil means it already finished: decide again.
                let connection: PooledConnection? = try await withCheckedThrowingContinuation { continuation in
                    let outcome = state.withLock { state -> Result<Bool, APNsClientError> in
                        if state.isShutdown { return .failure(APNsClientError(.shutdown, "the client has shut down")) }
                        if state.connecting == 0 || state.connections.contains(where: \.isUsable) { return .success(false) }
                        state.waiters.append(continuation)
                        return .success(true)
                    }
                    switch outcome {
                    case .failure(let error): continuation.resume(throwing: error)
                    case .success(false): continuation.resume(returning: nil)
                    case .success(true): break
                    }
                }
                if let connection { return connection }
            }
        }
    }

    private func decide() -> Decision {
        state.withLock { state -> Decision in
            if state.isShutdown { return .shutdown }
            state.connections.removeAll { !$0.isUsable && !$0.channel.isActive }
            var best: PooledConnection?
            var bestFree = Int.min
            var local: PooledConnection?
            var localFree = 0
            var usable = 0
            for connection in state.connections where connection.isUsable {
                usable += 1
                let free = connection.gauge.capacity.load(ordering: .relaxed) - connection.gauge.load.load(ordering: .relaxed)
                if free > bestFree {
                    best = connection
                    bestFree = free
                }
                if free > localFree && connection.eventLoop.inEventLoop {
                    local = connection
                    localFree = free
                }
            }
            // A caller on a connection's event loop (see EventLoopTaskExecutor) sends without a thread hop.
            if let local {
                local.gauge.load.add(1, ordering: .relaxed)
                return .use(local)
            }
            if let best, bestFree > 0 {
                best.gauge.load.add(1, ordering: .relaxed)
                return .use(best)
            }
            if usable + state.connecting < max(1, configuration.maximumConnections) {
                state.connecting += 1
                state.nextID += 1
                let eventLoop = Self.leastUsedLoop(of: group, state: state)
                state.connectingLoops.append(eventLoop)
                return .connect(id: state.nextID, on: eventLoop)
            }
            if let best {
                best.gauge.load.add(1, ordering: .relaxed)
                return .use(best)
            }
            return .wait
        }
    }

    /// The loop for a new connection: the caller's own when no loop has fewer connections, else one with fewest.
    private static func leastUsedLoop(of group: any EventLoopGroup, state: State) -> any EventLoop {
        func count(_ eventLoop: any EventLoop) -> Int {
            state.connections.count { $0.eventLoop === eventLoop } + state.connectingLoops.count { $0 === eventLoop }
        }
        let own = group.any()
        var chosen = own
        var fewest = count(own)
        for eventLoop in group.makeIterator() where fewest > 0 {
            let used = count(eventLoop)
            if used < fewest {
                chosen = eventLoop
                fewest = used
            }
        }
        return chosen
    }

    private func connect(id: Int, on eventLoop: any EventLoop) async throws -> PooledConnection {
        defer {
            state.withLock { state in
                if let index = state.connectingLoops.firstIndex(where: { $0 === eventLoop }) { state.connectingLoops.remove(at: index) }
            }
        }
        do {
            let connection = try await PooledConnection.connect(
                id: id, configuration: configuration, tls: tls, tokens: tokens, eventLoop: eventLoop, logger: logger
            )
            connection.channel.closeFuture.whenComplete { [weak self] _ in self?.forget(connection) }
            let (waiters, shutdown) = state.withLock { state in
                state.connecting -= 1
                if state.isShutdown { return ([CheckedContinuation<PooledConnection?, any Error>](), true) }
                state.connections.append(connection)
                connection.gauge.load.add(1 + state.waiters.count, ordering: .relaxed)
                defer { state.waiters.removeAll() }
                return (state.waiters, false)
            }
            if shutdown {
                connection.close()
                throw APNsClientError(.shutdown, "the client has shut down")
            }
            for waiter in waiters { waiter.resume(returning: connection) }
            return connection
        } catch {
            let waiters = state.withLock { state in
                state.connecting -= 1
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            let failure: APNsClientError
            if let error = error as? APNsClientError {
                failure = error
            } else if let refused = error as? TLSCertificateFailure {
                failure = APNsClientError(.serverCertificate, "cannot connect to \(configuration.endpoint): \(refused)")
            } else {
                failure = APNsClientError(.connectionFailed, "cannot connect to \(configuration.endpoint)", underlying: error)
            }
            // Every request waiting for the connection gets the failure: the callers say it, once each.
            logger.debug("APNs connection failed", metadata: ["endpoint": "\(configuration.endpoint)", "error": "\(failure)"])
            for waiter in waiters { waiter.resume(throwing: failure) }
            throw failure
        }
    }

    /// The request on `connection` has finished.
    func release(_ connection: PooledConnection) {
        connection.gauge.load.subtract(1, ordering: .relaxed)
    }

    private func forget(_ connection: PooledConnection) {
        state.withLock { state in state.connections.removeAll { $0 === connection } }
        logger.debug("APNs connection closed", metadata: ["apns-connection": "\(connection.id)"])
    }

    /// Takes no new requests, lets in-flight ones finish (each within its deadline), and closes every connection.
    func shutdown() async {
        let (connections, waiters) = state.withLock { state in
            state.isShutdown = true
            defer { state.waiters.removeAll() }
            return (state.connections, state.waiters)
        }
        for waiter in waiters { waiter.resume(throwing: APNsClientError(.shutdown, "the client has shut down")) }
        for connection in connections { connection.close() }
        for connection in connections { try? await connection.channel.closeFuture.get() }
    }
}
