import Foundation
import HeraldStore
import NIOCore
import NIOPosix
import PostgresNIO

extension StoreError {
    /// A failure at the PostgreSQL store's boundary, for the operation `what` ("store 20 notifications") on the server
    /// at `endpoint`:
    /// - the server unreachable, the connection lost, the server shutting down or refusing the login: `.unavailable`,
    ///   "cannot reach PostgreSQL at HOST:PORT: REASON";
    /// - a lock not granted within `lock_timeout`, a deadlock or serialization failure, a statement cancelled by a
    ///   timeout: `.busy` (a retry may succeed);
    /// - a unique key already taken: `.conflict`; a row that cannot be decoded: `.corrupt`;
    /// - anything else the server refuses: `.unavailable` with its message.
    ///
    /// A ``StoreError`` passes unchanged. The messages hold the server's own message and SQLSTATE, never a query's
    /// parameters (tokens, payloads) nor its detail line, which may quote them.
    static func postgres(_ error: any Error, cannot what: String, at endpoint: String) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PSQLError where error.code == .server:
            return server(error, cannot: what, at: endpoint)
        case is PostgresDecodingError:
            return StoreError(.corrupt, "cannot \(what): a row PostgreSQL at \(endpoint) returned cannot be read")
        default:
            return StoreError(.unavailable, "cannot \(what): cannot reach PostgreSQL at \(endpoint): \(reason(error))")
        }
    }

    private static func server(_ error: PSQLError, cannot what: String, at endpoint: String) -> StoreError {
        let state = error.serverInfo?[.sqlState] ?? "?????"
        let message = error.serverInfo?[.message] ?? "an error"
        let said = "\(message) (SQLSTATE \(state))"
        switch state {
        case "55P03", "40001", "40P01", "57014":
            return StoreError(.busy, "cannot \(what): PostgreSQL at \(endpoint) said: \(said)")
        case "23505":
            return StoreError(.conflict, "cannot \(what): PostgreSQL at \(endpoint) said: \(said)")
        case _ where state.hasPrefix("08") || state.hasPrefix("28") || state.hasPrefix("57P") || state == "3D000" || state == "53300":
            // Connection exceptions, a refused login, a server shutting down or starting, no such database, too many
            // connections.
            return StoreError(.unavailable, "cannot \(what): cannot reach PostgreSQL at \(endpoint): \(said)")
        default:
            return StoreError(.unavailable, "cannot \(what): PostgreSQL at \(endpoint) said: \(said)")
        }
    }

    /// Whether `error` is a connection attempt that got no answer in time (rather than a refusal).
    static func isTimeout(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError: error.underlying.map(isTimeout) ?? false
        case let error as NIOConnectionError: !error.connectionErrors.isEmpty && error.connectionErrors.allSatisfy { isTimeout($0.error) }
        case ChannelError.connectTimeout: true
        default: false
        }
    }

    /// Why a connection failed, in words ("connection refused", "the server closed the connection").
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as PSQLError:
            if let underlying = error.underlying { return reason(underlying) }
            if let message = error.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?????"))"
            }
            switch error.code {
            case .serverClosedConnection: return "the server closed the connection"
            case .uncleanShutdown: return "the connection was lost"
            case .sslUnsupported: return "the server does not offer TLS, which the URL's sslmode requires"
            default: return "\(error.code)"
            }
        case let error as NIOConnectionError:
            // Each address tried failed; the first says why (a failed name lookup says so in its description).
            return error.connectionErrors.first.map { reason($0.error) } ?? "\(error)"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case ChannelError.connectTimeout(let timeout):
            return "no answer within \(timeout.nanoseconds / 1_000_000) ms"
        default:
            return String(describing: error)
        }
    }
}
