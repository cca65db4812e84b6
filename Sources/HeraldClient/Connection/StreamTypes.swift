import HeraldWire
import NIOCore
import Synchronization

/// One request handed to a connection: its headers (without `authorization`, which the connection adds),
/// its body and its deadline.
struct StreamRequest: Sendable {
    var headers: [(name: String, value: String)]
    var body: ByteBuffer
    var deadline: NIODeadline
    var promise: EventLoopPromise<StreamResponse>
}

/// What came back on one stream.
struct StreamResponse: Sendable {
    var status: Int
    var apnsID: String?
    var uniqueID: String?
    var body: ByteBuffer
}

/// Why a stream got no answer.
struct StreamFailure: Error, CustomStringConvertible {
    enum Kind: Sendable {
        /// The server did not process the request (never sent, GOAWAY past it, REFUSED_STREAM): safe to retry.
        case notProcessed
        /// The connection ended with the request in flight: it may or may not have been accepted.
        case connectionClosed
        /// The deadline passed.
        case timeout
        /// The server reset the stream.
        case reset
    }

    var kind: Kind
    var detail: String
    /// The reason of a GOAWAY that ended the request, if one did.
    var goAwayReason: APNsReason?
    var underlying: (any Error)?

    var description: String { detail }
}

/// What a connection shares with its pool, read off its event loop.
final class ConnectionGauge: Sendable {
    /// Requests assigned to the connection and not finished.
    let load = Atomic<Int>(0)
    /// Streams the connection may have open now (1 until authenticated, then the server's SETTINGS).
    let capacity = Atomic<Int>(1)
    /// False once the connection takes no new requests (GOAWAY received, closing, closed).
    let usable = Atomic<Bool>(true)
}
