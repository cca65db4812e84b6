import Foundation
import HeraldWire
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL

/// One provider connection's state: its auth binding, stream accounting, error budget and shutdown.
///
/// Lives on the connection's event loop; its streams share that loop and use it directly.
final class ProviderConnection {
    let channel: any Channel
    private let configuration: GatewayConfiguration
    var auth = ConnectionAuthState()
    /// Set once the connection is closing: requests that complete from then on are refused with it.
    private(set) var drainReason: APNsReason?
    private var finalGoAwaySent = false
    private var activeStreams = 0
    private var highestStreamID = HTTP2StreamID.rootStream
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

    func streamClosed() {
        activeStreams -= 1
        if finalGoAwaySent && activeStreams == 0 {
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

    /// The opaque data of the PING that times the final GOAWAY.
    static let drainPing = HTTP2PingData(withInteger: 0x4845_5241_4C44)

    /// Closes the connection gracefully, as RFC 9113 §6.8 describes: a GOAWAY naming the largest stream id
    /// tells the client to open no more streams, a PING measures one round trip, then a second GOAWAY names
    /// the last stream the gateway will answer. Open streams finish; the connection closes after them.
    /// Both GOAWAYs carry `{"reason": …}`.
    func startDraining(_ reason: APNsReason) {
        guard drainReason == nil, channel.isActive else { return }
        drainReason = reason
        channel.write(goAway(lastStreamID: .maxID, reason: reason), promise: nil)
        channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .ping(Self.drainPing, ack: false)), promise: nil)
        // A client that never answers the PING still gets its final GOAWAY.
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        eventLoop.scheduleTask(in: .seconds(1)) { bound.value.finishDraining() }
    }

    /// The drain PING came back: every stream the client opened before it saw the first GOAWAY is known.
    func finishDraining() {
        guard let drainReason, !finalGoAwaySent, channel.isActive else { return }
        finalGoAwaySent = true
        channel.writeAndFlush(goAway(lastStreamID: highestStreamID, reason: drainReason), promise: nil)
        if activeStreams == 0 {
            channel.close(promise: nil)
        } else {
            // Streams that do not finish in time (a client that never sends the rest) lose the connection.
            let channel = self.channel
            eventLoop.scheduleTask(in: configuration.shutdownGracePeriod) { channel.close(promise: nil) }
        }
    }

    private func goAway(lastStreamID: HTTP2StreamID, reason: APNsReason) -> HTTP2Frame {
        let debugData = channel.allocator.buffer(string: #"{"reason":"\#(reason.rawValue)"}"#)
        return HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: debugData))
    }
}
