import Foundation
import HeraldWire
import NIOCore
import NIOHTTP2
import NIOSSL

/// One provider connection's state: its auth binding, stream accounting, error budget and shutdown.
///
/// Lives on the connection's event loop and is only touched there.
final class ProviderConnection {
    let channel: any Channel
    private let configuration: GatewayConfiguration
    var auth = ConnectionAuthState()
    /// The provider token verified last on this connection.
    var verifiedToken: TokenVerifier.Verified?
    /// Set once the connection is closing: requests that complete from then on are refused with it.
    private(set) var drainReason: APNsReason?
    private var activeStreams = 0
    private var highestStreamID = HTTP2StreamID.rootStream
    /// While draining: the highest stream open when it began, and how many of those still await their answer.
    private var drainingFrom = HTTP2StreamID.rootStream
    private var answersOwedBeforeGoAway = 0
    private var goAwaySent = false
    private var errorsCounted = 0
    private var concurrencyRaised = false
    private var identity: ClientIdentity??

    init(channel: any Channel, configuration: GatewayConfiguration) {
        self.channel = channel
        self.configuration = configuration
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    /// The client certificate's identity, or nil when the client authenticates with tokens.
    ///
    /// Throws ``Rejection`` `BadCertificate` when a certificate was presented but cannot be read.
    func clientIdentity() throws(Rejection) -> ClientIdentity? {
        if let identity { return identity }
        var resolved: ClientIdentity?
        if let handler = try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self),
           let certificate = handler.peerCertificate {
            do {
                resolved = try ClientIdentity(derEncoded: certificate.toDERBytes())
            } catch {
                throw Rejection(.badCertificate, "the client certificate cannot be read")
            }
        }
        identity = .some(resolved)
        return resolved
    }

    func streamOpened(_ id: HTTP2StreamID) {
        activeStreams += 1
        highestStreamID = max(highestStreamID, id)
    }

    func streamClosed(_ id: HTTP2StreamID) {
        activeStreams -= 1
        guard drainReason != nil else { return }
        if !goAwaySent, id <= drainingFrom {
            answersOwedBeforeGoAway -= 1
            if answersOwedBeforeGoAway == 0 { sendGoAway() }
        } else if goAwaySent, activeStreams == 0 {
            channel.flush()
            channel.close(promise: nil)
        }
    }


    /// Bookkeeping after each answer: raise the stream limit after the first success, lower it after an
    /// authentication failure, and close the connection once its error budget is spent.
    func record(_ rejection: Rejection?) {
        guard let rejection else {
            if !concurrencyRaised {
                concurrencyRaised = true
                announce(maximumConcurrentStreams: configuration.authenticatedMaximumConcurrentStreams)
            }
            return
        }
        if rejection.reason.status == 403, concurrencyRaised {
            concurrencyRaised = false
            announce(maximumConcurrentStreams: configuration.unauthenticatedMaximumConcurrentStreams)
        }
        guard rejection.reason.countsAsConnectionError, rejection.reason.status < 500 else { return }
        errorsCounted += rejection.reason == .badDeviceToken ? configuration.badDeviceTokenErrorWeight : 1
        if errorsCounted >= configuration.connectionErrorBudget {
            startDraining(rejection.reason)
        }
    }

    private func announce(maximumConcurrentStreams: Int) {
        let settings = HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([
            HTTP2Setting(parameter: .maxConcurrentStreams, value: maximumConcurrentStreams),
        ])))
        channel.writeAndFlush(settings, promise: nil)
    }

    /// Closes the connection gracefully. Requests completing from now on are answered at once with `reason`;
    /// the GOAWAY (`{"reason": …}`, naming the last stream answered) goes out once every request open now has its
    /// answer, so clients that take any frame after a GOAWAY for an error (Python's h2: aioapns, httpx) still
    /// read them. The HTTP/2 layer then ignores newer streams (never processed, safe to retry), and the connection
    /// closes when the rest are answered; after the grace period it closes regardless.
    func startDraining(_ reason: APNsReason) {
        guard drainReason == nil, channel.isActive else { return }
        drainReason = reason
        drainingFrom = highestStreamID
        answersOwedBeforeGoAway = activeStreams
        if answersOwedBeforeGoAway == 0 {
            sendGoAway()
        } else {
            let channel = self.channel
            eventLoop.assumeIsolated().scheduleTask(in: configuration.shutdownGracePeriod) {
                if !self.goAwaySent { self.sendGoAway() }
                channel.close(promise: nil)
            }
        }
    }

    private func sendGoAway() {
        goAwaySent = true
        channel.writeAndFlush(goAway(lastStreamID: highestStreamID, reason: drainReason ?? .shutdown), promise: nil)
        if activeStreams == 0 { channel.close(promise: nil) }
    }

    private func goAway(lastStreamID: HTTP2StreamID, reason: APNsReason) -> HTTP2Frame {
        let debugData = channel.allocator.buffer(string: #"{"reason":"\#(reason.rawValue)"}"#)
        return HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: debugData))
    }
}
