import Foundation
import HeraldWire
import NIOCore
import NIOHTTP2
import NIOSSL

/// One provider connection: its auth binding and client identity, and the rules of ``StateMachine`` (stream
/// limit, error budget, closing) carried out on its channel.
///
/// Lives on the connection's event loop and is only touched there.
final class ProviderConnection {
    let channel: any Channel
    private let configuration: GatewayConfiguration
    var auth = ConnectionAuthState()
    /// The provider token verified last on this connection.
    var verifiedToken: TokenVerifier.Verified?
    private var state: StateMachine
    private var identity: ClientIdentity??

    init(channel: any Channel, configuration: GatewayConfiguration) {
        self.channel = channel
        self.configuration = configuration
        state = StateMachine(configuration: configuration)
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    /// Set once the connection is closing: requests that complete from then on are refused with it.
    var drainReason: APNsReason? { state.closingReason }
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

    /// A HEADERS frame on `id`: true when it opens a new stream, false for trailers.
    func headersReceived(on id: HTTP2StreamID) -> Bool {
        state.headersReceived(on: id)
    }

    func streamOpened(_ id: HTTP2StreamID) {
        state.streamOpened(id)
    }

    func streamClosed(_ id: HTTP2StreamID) {
        if let action = state.streamClosed(id) { perform(action) }
    }

    /// Bookkeeping after each answer: the stream limit and the error budget (``StateMachine/answered(_:)``).
    func record(_ rejection: Rejection?) {
        for action in state.answered(rejection, senderKnown: senderKnown) { perform(action) }
    }

    /// Closes the connection gracefully. Requests completing from now on are answered at once with `reason`;
    /// the GOAWAY (`{"reason": …}`, naming the last stream answered) goes out once every request open now has its
    /// answer, so clients that take any frame after a GOAWAY for an error (Python's h2: aioapns, httpx) still
    /// read them. The HTTP/2 layer then ignores newer streams (never processed, safe to retry), and the connection
    /// closes when the rest are answered; after the grace period it closes regardless.
    func startDraining(_ reason: APNsReason) {
        guard channel.isActive else { return }
        for action in state.startClosing(reason) { perform(action) }
    }

    /// An error of the whole connection: what to do about it (``StateMachine/connectionError()``).
    func connectionError() -> StateMachine.Action {
        state.connectionError()
    }

    private func perform(_ action: StateMachine.Action) {
        switch action {
        case .announce(let maximumConcurrentStreams):
            let settings = HTTP2Frame(
                streamID: .rootStream,
                payload: .settings(
                    .settings([
                        HTTP2Setting(parameter: .maxConcurrentStreams, value: maximumConcurrentStreams)
                    ])))
            channel.writeAndFlush(settings, promise: nil)
        case .startGracePeriod:
            eventLoop.assumeIsolated().scheduleTask(in: configuration.shutdownGracePeriod) {
                for action in self.state.gracePeriodEnded() { self.perform(action) }
            }
        case .sendGoAway(let lastStreamID, let reason, let thenClose):
            let debugData = channel.allocator.buffer(string: #"{"reason":"\#(reason.rawValue)"}"#)
            let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: debugData))
            channel.writeAndFlush(goAway, promise: nil)
            if thenClose { channel.close(promise: nil) }
        case .close:
            channel.flush()
            channel.close(promise: nil)
        case .refuseUnsubmittedStreams:
            break  // the handler, which holds the streams, does this
        }
    }
}
