import Foundation
import HeraldStore
import HeraldWire
import Logging
import NIOCore
import NIOWebSocket

/// One device link on its channel, once the WebSocket upgrade is done: frames in, frames out, one timer.
///
/// No task lives as long as the link. The handler reacts on the event loop to frames, to its timer and to
/// its ``DeviceLink``'s wake-ups, and starts a short task only for work that needs the store (the hello,
/// a register or unregister, reading pending notifications). An idle link costs its socket, its TLS state
/// and a few small objects. ``DeviceLinkStateMachine`` decides; this class does the I/O.
final class DeviceLinkHandler: ChannelDuplexHandler, NIOScheduledCallbackHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    typealias Closing = DeviceLinkStateMachine.Closing

    private let services: DeviceLinkServices
    /// The challenge's nonce, until the hello is checked.
    private var nonce: String
    private var machine: DeviceLinkStateMachine
    private var assembler: WebSocketMessageAssembler
    private var context: ChannelHandlerContext?
    private var link: DeviceLink?
    private var armed = DeviceLinkStateMachine.Timer.none
    private var timer: NIOScheduledCallback?
    /// A read the channel asked for while a request was in progress or the channel could take no more writes, passed
    /// on once neither holds.
    private var readHeld = false
    /// Armed while the channel cannot take more writes (the device reads nothing).
    private var stalledTimer: Scheduled<Void>?
    /// Set once the gateway has failed the link (a broken rule, no pong, stalled): nothing more is read or decoded,
    /// so a device flooding it costs nothing while TLS waits out its shutdown.
    private var failed = false
    /// Registrations and unregistrations this link may still make now.
    private var requestBudget: RequestBudget

    init(services: DeviceLinkServices) {
        self.services = services
        nonce = Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        assembler = WebSocketMessageAssembler(limit: services.configuration.deviceLinkMessageLimit)
        requestBudget = RequestBudget(burst: services.configuration.deviceLinkRequestBurst, perSecond: services.configuration.deviceLinkRequestRate)
        machine = DeviceLinkStateMachine(
            helloTimeout: services.configuration.deviceAuthenticationTimeout,
            pingInterval: services.configuration.deviceLinkPingInterval
        )
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        send(.challenge(nonce: nonce), context: context)
        settle()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stalledTimer?.cancel()
        machine.connectionClosed()
        settle()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        machine.connectionClosed()
        settle()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        machine.heard()
        let message: WebSocketMessageAssembler.Output?
        do {
            message = try assembler.append(unwrapInboundIn(data))
        } catch {
            run(machine.broken(error))
            return settle()
        }
        switch message {
        case .text(let text):
            machine.received(Self.decode(text))
        case .binary:
            machine.received(.failure(Closing(.unacceptableData, "the device link carries JSON text messages, not binary", .binaryMessage)))
        case .control(.ping, let data):
            if machine.isOpen {
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: data)), promise: nil)
            }
        case .control(.connectionClose, var data):
            run(machine.closeReceived(code: data.readWebSocketErrorCode()))
        case .control, nil:
            break
        }
        settle()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let limit = services.configuration.deviceLinkMessageLimit
        switch error {
        case NIOWebSocketError.invalidFrameLength:
            run(machine.broken(Closing(.messageTooLarge, "a message over \(limit) bytes", .messageTooLarge)))
        case is NIOWebSocketError:
            run(machine.broken(Closing(.protocolError, "bad WebSocket framing (\(error))", .protocolError)))
        default:
            services.logger.debug("device link failed", metadata: ["error": "\(error)"])
            context.close(promise: nil)
        }
        settle()
    }

    /// Holds reads while a hello or request is in progress, so a device's messages are handled one at a
    /// time and a device that floods the link waits in its own socket buffer rather than in the gateway; and while
    /// the channel can take no more writes, so a device that sends pings without reading the pongs waits there too.
    func read(context: ChannelHandlerContext) {
        if failed || machine.isBusy || !context.channel.isWritable {
            readHeld = true
        } else {
            context.read()
        }
    }

    /// A device whose writes stay blocked for the stalled-connection timeout reads nothing: its link is closed.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stalledTimer?.cancel()
            stalledTimer = nil
            settle()
        } else if stalledTimer == nil {
            let timeout = services.configuration.stalledConnectionTimeout
            stalledTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                self.stalledTimer = nil
                self.run(
                    self.machine.broken(Closing(.policyViolation, "the device read nothing for \(timeout.nanoseconds / 1_000_000_000) s", .stalled)))
                self.settle()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Closes the link with 1001 because the gateway is stopping.
    func shutDown() {
        run(machine.closeRequested(.shutdown))
        settle()
    }

    func handleScheduledCallback(eventLoop: some EventLoop) {
        timer = nil
        armed = .none
        run(machine.timerFired())
        settle()
    }

    // MARK: - Carrying out the state machine's decisions

    /// Takes every action the waiting messages call for, then brings the link, the timer and reading in
    /// line with the new phase.
    private func settle() {
        while let action = machine.nextAction() {
            run(action)
        }
        if link != nil, machine.phase != .linked {
            unlink()
        }
        armTimer()
        if readHeld, !failed, !machine.isBusy, let context, context.channel.isWritable {
            readHeld = false
            context.read()
        }
    }

    private func run(_ action: DeviceLinkStateMachine.Action?) {
        guard let action, let context else { return }
        switch action {
        case .authenticate(let hello):
            authenticate(hello, context: context)
        case .acknowledge(let uniqueID):
            if let link, let acknowledged = link.acknowledge(uniqueID) {
                switch acknowledged {
                case .notification(let id): services.recorder.delivered(id)
                case .broadcast(let delivery): services.recorder.broadcastDelivered(delivery)
                }
                services.metrics.notificationAcknowledged()
                services.events.publish { [DeliveryEvents.delivered(uniqueID: uniqueID, deviceID: link.deviceID, at: services.clock.now())] }
            } else {
                // Not in flight to this device: another device's notification, or one acknowledged already.
                services.metrics.deviceLinkMessageIgnored("ack")
            }
        case .recordResponse(let uniqueID, let action, let text):
            if let link {
                services.recordResponse(
                    NotificationResponse(action: action, text: text, at: services.clock.now()), to: uniqueID, deviceID: link.deviceID)
            }
        case .answer(let request):
            answer(request, context: context)
        case .sendPing:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())), promise: nil)
        case .close(let closing):
            // Nothing follows the close frame, so the gateway's side ends with it; the device's close frame
            // is still read, and ends the connection (or the close timeout does).
            services.logger.debug("device link closing", metadata: ["reason": "\(closing.reason)"])
            services.metrics.deviceLinkClosed(closing.kind)
            sendClose(closing, context: context)
        case .closeNow(let closing):
            if let closing {
                fail(context: context)
                services.metrics.deviceLinkClosed(closing.kind)
            }
            closeConnection(after: closing, context: context)
        case .echoClose(let code):
            closeConnection(after: Closing(code, "", .byDevice), context: context)
        }
    }

    /// Writes the close frame, if any, and ends the connection: the gateway's side at once, fully on the
    /// next tick of the event loop (not from inside the read or write that led here: TLS must first finish that).
    private func closeConnection(after closing: Closing?, context: ChannelHandlerContext) {
        if let closing {
            if !closing.reason.isEmpty {
                services.logger.debug("device link closed", metadata: ["reason": "\(closing.reason)"])
            }
            sendClose(closing, context: context)
        }
        context.eventLoop.assumeIsolated().execute { context.close(promise: nil) }
    }

    /// Reads and decodes nothing more: the frame decoder goes too, so what the device sent past the fault (a flood
    /// of tiny frames, read in the same chunk) is dropped whole instead of decoded frame by frame.
    private func fail(context: ChannelHandlerContext) {
        failed = true
        let decoder = try? context.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<WebSocketFrameDecoder>.self)
        if let decoder { context.pipeline.syncOperations.removeHandler(context: decoder, promise: nil) }
    }

    /// The close frame, and right behind it the end of the gateway's side (TLS close_notify, FIN), in one
    /// TCP segment where the platform allows.
    ///
    /// A device closes its TLS as soon as it has the close frame; if it has not yet read the close_notify
    /// then, its TLS stack may wait out its shutdown timeout (swift-nio-ssl does with half-closure allowed,
    /// as Hummingbird's WebSocket client has it). In one segment they arrive in the same read.
    private func sendClose(_ closing: Closing, context: ChannelHandlerContext) {
        #if os(Linux)
        try? context.channel.syncOptions?.setOption(.tcpOption(.init(rawValue: TCP_CORK)), value: 1)
        #endif
        context.writeAndFlush(wrapOutboundOut(Self.closeFrame(closing, allocator: context.channel.allocator)), promise: nil)
        context.close(mode: .output, promise: nil)  // sends what the cork held, with the FIN
    }

    private func authenticate(_ hello: DeviceLinkMessage.Hello, context: ChannelHandlerContext) {
        let services = self.services
        let nonce = self.nonce
        self.nonce = ""
        context.eventLoop.makeFutureWithTask { try await services.authenticate(hello, nonce: nonce) }
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let authenticated):
                    self.linked(authenticated)
                case .failure(let error):
                    self.run(self.machine.failed(self.closing(for: error)))
                }
                self.settle()
            }
    }

    private func linked(_ authenticated: DeviceLinkServices.Authenticated) {
        guard machine.phase == .authenticating, let context else { return }
        let deviceID = authenticated.deviceID
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let link = DeviceLink(deviceID: deviceID, window: services.configuration.deviceLinkWindow) {
            eventLoop.execute { handler.value.pump() }
        }
        services.hub.attach(link, channels: authenticated.channels)?.close(.replaced)
        services.metrics.deviceLinked()
        self.link = link
        machine.authenticated()
        send(.welcome(deviceID: deviceID), context: context)
        services.logger.debug("device linked", metadata: ["device": "\(deviceID.prefix(8))"])
        pump()
        if !authenticated.channels.isEmpty {
            let services = self.services
            Task { await services.offerKeptBroadcasts(to: link) }
        }
    }

    private func answer(_ request: DeviceLinkMessage, context: ChannelHandlerContext) {
        guard let deviceID = link?.deviceID else { return }
        let services = self.services
        guard requestBudget.take(at: context.eventLoop.now) else {
            services.metrics.deviceLinkRequestRefused("TooManyRequests")
            let configuration = services.configuration
            send(
                request.refused(
                    reason: "TooManyRequests",
                    message:
                        "a device may make \(configuration.deviceLinkRequestBurst) requests at once and \(RequestBudget.describe(configuration.deviceLinkRequestRate)) a second after that"
                ), context: context)
            machine.requestFinished()
            return
        }
        context.eventLoop.makeFutureWithTask { try await services.answer(request, deviceID: deviceID) }
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let reply):
                    if self.machine.isOpen, let context = self.context {
                        self.send(reply, context: context)
                    }
                    if case .error(let refusal) = reply { services.metrics.deviceLinkRequestRefused(refusal.reason) }
                    self.machine.requestFinished()
                case .failure(let error):
                    self.run(self.machine.failed(self.closing(for: error)))
                }
                self.settle()
            }
    }

    /// Does what the link asks for until it has nothing more: writes what the gateway tells the device and
    /// notifications (one flush for all of them), starts a read of pending ones, or closes the link when a newer one
    /// replaced it.
    private func pump() {
        guard machine.phase == .linked, let link, let context else { return }
        var wrote = false
        defer { if wrote { context.flush() } }
        while let step = link.nextStep() {
            switch step {
            case .tell(let messages):
                for message in messages { send(message, context: context, flush: false) }
                wrote = true
            case .send(let notifications):
                for notification in notifications {
                    send(.notification(notification.linkNotification), context: context, flush: false)
                    services.metrics.notificationSent()
                }
                wrote = true
            case .fetch(let after, let limit, let mark):
                let services = self.services
                Task { await services.fetchPending(for: link, after: after, limit: limit, mark: mark) }
            case .close(let reason):
                switch reason {
                case .replaced: run(machine.closeRequested(.replaced))
                case .shutdown: run(machine.closeRequested(.shutdown))
                case .ended: break
                }
                settle()
                return
            }
        }
    }

    /// Writes one message, flushed unless more follow.
    private func send(_ message: DeviceLinkMessage, context: ChannelHandlerContext, flush: Bool = true) {
        let frame = wrapOutboundOut(Self.textFrame(message, allocator: context.channel.allocator))
        if flush {
            context.writeAndFlush(frame, promise: nil)
        } else {
            context.write(frame, promise: nil)
        }
    }

    private func unlink() {
        guard let link else { return }
        self.link = nil
        services.hub.detach(link)
        link.close(.ended)
        services.metrics.deviceUnlinked()
    }

    /// Keeps the one timer the phase needs: the hello deadline, the ping interval or the close timeout.
    private func armTimer() {
        let wanted = machine.timer
        guard wanted != armed, let context else { return }
        timer?.cancel()
        timer = nil
        armed = wanted
        let configuration = services.configuration
        let deadline: NIODeadline
        let now = context.eventLoop.now  // the loop's clock: virtual in tests
        switch wanted {
        case .hello: deadline = now + configuration.deviceAuthenticationTimeout
        case .ping: deadline = now + configuration.deviceLinkPingInterval
        case .closeTimeout: deadline = now + configuration.deviceLinkCloseTimeout
        case .none: return
        }
        timer = try? context.eventLoop.assumeIsolated().scheduleCallback(at: deadline, handler: self)
    }

    private func closing(for error: any Error) -> Closing {
        if let closing = error as? Closing { return closing }
        services.logger.error("device link request failed", metadata: ["error": "\(error)"])
        return Closing(.unexpectedServerError, "the gateway cannot serve this link now", .storeUnavailable)
    }
}
