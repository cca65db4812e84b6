import Foundation
import HeraldWire
import NIOCore
import NIOHTTP2
import NIOSSL

/// One provider connection as the request processor sees it: its auth binding and client identity, whether it is
/// closing, and the answers it gave (which its handler's ``StateMachine`` counts against the stream limit and the
/// error budget).
///
/// Lives on the connection's event loop and is only touched there.
final class ProviderConnection {
    let channel: any Channel
    var auth = ConnectionAuthState()
    /// The provider token verified last on this connection.
    var verifiedToken: TokenVerifier.Verified?
    private var identity: ClientIdentity??
    /// The handler that carries out the connection's rules, while it is in the pipeline. A strong reference, dropped
    /// when the handler is removed (the channel closing removes every handler): a weak one would move the handler's
    /// reference counts to a side table, slower for every retain of it (about 1% of the gateway's CPU).
    var handler: ProviderConnectionHandler?

    init(channel: any Channel) {
        self.channel = channel
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    /// Set once the connection is closing: requests that complete from then on are refused with it.
    var drainReason: APNsReason? { handler?.closingReason }
    /// Whether a request on this connection has shown who sends it: a provider token admitted, or a client
    /// certificate read. Until then the connection is unused, whatever arrived on it.
    var senderKnown: Bool {
        if auth.teamID != nil { return true }
        if case .some(.some) = identity { return true }
        return false
    }

    /// The client certificate's identity, or nil when the client authenticates with tokens.
    ///
    /// Throws ``Rejection`` `BadCertificate` when a certificate was presented but cannot be read.
    func clientIdentity() throws(Rejection) -> ClientIdentity? {
        if let identity { return identity }
        var resolved: ClientIdentity?
        if let handler = try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self),
            let certificate = handler.peerCertificate
        {
            do {
                resolved = try ClientIdentity(derEncoded: certificate.toDERBytes())
            } catch {
                throw Rejection(.badCertificate, "the client certificate cannot be read")
            }
        }
        identity = .some(resolved)
        return resolved
    }

    /// Bookkeeping after each answer: the stream limit and the error budget (``StateMachine/answered(_:now:)``).
    func record(_ rejection: Rejection?) {
        handler?.answered(rejection)
    }

    /// Closes the connection gracefully. Requests completing from now on are answered at once with `reason`;
    /// the GOAWAY (`{"reason": …}`, naming the last stream answered) goes out once every request open now has its
    /// answer, so clients that take any frame after a GOAWAY for an error (Python's h2: aioapns, httpx) still
    /// read them. The HTTP/2 layer then refuses newer streams with REFUSED_STREAM (never processed, safe to retry),
    /// and the connection closes when the rest are answered; after the grace period it closes regardless.
    func startDraining(_ reason: APNsReason) {
        guard channel.isActive else { return }
        handler?.startClosing(reason)
    }
}
