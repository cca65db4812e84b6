import Foundation
import HeraldStore
import HeraldWire
import Logging
import NIOCore
import NIOWebSocket

/// One Firefox on the Web Push port: Mozilla's WebPush WebSocket protocol (``AutopushMessage``) over the WebSocket at
/// `/`. After its hello the browser is a linked device like any other (a ``DeviceLink`` in the ``DeviceHub``): its
/// messages are offered as they commit, kept while it is away and sent after its next hello, and marked delivered when
/// it acknowledges them. Messages are handled one at a time, in order; reads wait while one needs the store.
final class AutopushHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Messages read and not yet handled, at most: reads wait meanwhile, so only a browser that sends many in one read
    /// gets near it, and one past it is closed.
    static let waitingLimit = 64

    private let services: DeviceLinkServices
    /// `https://host:port` as the browser reached this port: the origin of the endpoints it is given.
    private let origin: String
    private var assembler: WebSocketMessageAssembler
    private var context: ChannelHandlerContext?
    private var uaid: String?
    private var link: DeviceLink?
    /// Firefox's channel id of each of its subscriptions, by token: what a notification is addressed to.
    private var channels: [DeviceToken: String] = [:]
    private var waiting: [AutopushMessage] = []
    private var busy = false
    private var readHeld = false
    private var closed = false
    private var helloTimer: Scheduled<Void>?

    init(services: DeviceLinkServices, origin: String) {
        self.services = services
        self.origin = origin
        assembler = WebSocketMessageAssembler(limit: services.configuration.deviceLinkMessageLimit)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let timeout = services.configuration.deviceLinkHandshakeTimeout
        helloTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            if self.uaid == nil { self.close(code: .policyViolation) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        unlink()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        helloTimer?.cancel()
        unlink()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        let message: WebSocketMessageAssembler.Output?
        do {
            message = try assembler.append(unwrapInboundIn(data))
        } catch {
            return close(code: error.code)
        }
        switch message {
        case .text(let text):
            guard waiting.count < Self.waitingLimit else { return close(code: .policyViolation) }
            do {
                waiting.append(try AutopushMessage.parse(Data(text.readableBytesView)))
            } catch {
                services.logger.debug("a browser sent a malformed push message", metadata: ["error": "\(error)"])
                return close(code: .unacceptableData)
            }
            handleNext()
        case .binary: close(code: .unacceptableData)
        case .control(.ping, let data):
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: data)), promise: nil)
        case .control(.connectionClose, _):
            // Firefox does not answer a close frame; neither side waits for one.
            close(code: .normalClosure)
        case .control, nil:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        services.logger.debug("browser push connection failed", metadata: ["error": "\(error)"])
        close(code: .protocolError)
    }

    /// Holds reads while a message waits for the store, so a flooding browser waits in its own socket buffer.
    func read(context: ChannelHandlerContext) {
        if busy || !waiting.isEmpty {
            readHeld = true
        } else {
            context.read()
        }
    }

    private func handleNext() {
        guard !busy, !closed, !waiting.isEmpty else {
            if readHeld, !busy, waiting.isEmpty, let context {
                readHeld = false
                context.read()
            }
            return
        }
        let message = waiting.removeFirst()
        guard let uaid else {
            guard case .hello(let sent) = message else { return close(code: .policyViolation) }
            return run { services in
                let (uaid, channels) = try await services.autopushHello(uaid: sent)
                return { handler in handler.linked(uaid: uaid, channels: channels) }
            }
        }
        switch message {
        case .hello:
            close(code: .policyViolation)  // one hello per connection
        case .register(let channelID, let key):
            let origin = self.origin
            run { services in
                switch try await services.autopushRegister(uaid: uaid, channelID: channelID, key: key) {
                case .registered(let device):
                    let endpoint = origin + WebPushService.pathPrefix + device.token.hex
                    return { handler in
                        handler.channels[device.token] = channelID
                        handler.send(AutopushMessage.registerReply(channelID: channelID, endpoint: endpoint))
                    }
                case .refused(let status, let reason):
                    services.logger.info("refused a browser's subscription", metadata: ["reason": "\(reason)"])
                    return { handler in handler.send(AutopushMessage.registerRefused(channelID: channelID, status: status)) }
                }
            }
        case .unregister(let channelID):
            run { services in
                try await services.autopushUnregister(uaid: uaid, channelID: channelID)
                return { handler in
                    handler.channels = handler.channels.filter { $0.value != channelID }
                    handler.send(AutopushMessage.unregisterReply(channelID: channelID))
                }
            }
        case .ack(let updates):
            for update in updates { acknowledge(update) }
            handleNext()
        case .ping:
            send(AutopushMessage.pong)
            handleNext()
        case .broadcastSubscribe:
            send(AutopushMessage.broadcastReply)
            handleNext()
        case .nack, .other:
            handleNext()
        }
    }

    /// Runs `work` off the event loop with the services; what it returns runs back on the loop, then the next message.
    private func run(_ work: @escaping @Sendable (DeviceLinkServices) async throws -> @Sendable (AutopushHandler) -> Void) {
        guard let context else { return }
        busy = true
        let services = self.services
        context.eventLoop.makeFutureWithTask { try await work(services) }
            .assumeIsolated()
            .whenComplete { result in
                self.busy = false
                switch result {
                case .success(let then): then(self)
                case .failure(let error):
                    services.logger.error("a browser's push request failed", metadata: ["error": "\(error)"])
                    return self.close(code: .unexpectedServerError)
                }
                self.handleNext()
            }
    }

    private func linked(uaid: String, channels: [DeviceToken: String]) {
        guard let context, !closed else { return }
        helloTimer?.cancel()
        self.uaid = uaid
        self.channels = channels
        send(AutopushMessage.helloReply(uaid: uaid))
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let link = DeviceLink(deviceID: uaid, window: services.configuration.deviceLinkWindow) {
            eventLoop.execute { handler.value.pump() }
        }
        services.hub.attach(link)?.close(.replaced)
        services.metrics.deviceLinked()
        self.link = link
        pump()
    }

    /// Sends what the link has for the browser, reads what is pending, or closes when a newer connection took over.
    private func pump() {
        guard let link, let context, !closed else { return }
        var wrote = false
        defer { if wrote { context.flush() } }
        while let step = link.nextStep() {
            switch step {
            case .tell:
                break  // the device link's notices (a token retired elsewhere) have no autopush message
            case .send(let notifications):
                for notification in notifications {
                    guard let channelID = channels[notification.deviceToken] else {
                        // A subscription this connection does not hold (unsubscribed meanwhile): it leaves the window.
                        if case .notification(let id)? = link.acknowledge(notification.uniqueID) {
                            services.recorder.discarded([id], reason: .unregistered)
                        }
                        continue
                    }
                    let text = AutopushMessage.notification(
                        channelID: channelID, version: APNsID.format(notification.uniqueID), body: notification.payload,
                        ttl: notification.webPush?.ttl)
                    context.write(wrapOutboundOut(Self.textFrame(text, allocator: context.channel.allocator)), promise: nil)
                    services.metrics.notificationSent()
                    wrote = true
                }
            case .fetch(let after, let limit, let mark):
                let services = self.services
                Task { await services.fetchPending(for: link, after: after, limit: limit, mark: mark) }
            case .close:
                return close(code: .goingAway)
            }
        }
    }

    /// An ack: delivered (100, or 102 for one it had already), or delivered but not readable (101, logged as the
    /// browser's drop).
    private func acknowledge(_ update: AutopushMessage.Update) {
        guard let link, let uniqueID = APNsID.parse(update.version), case .notification(let id)? = link.acknowledge(uniqueID) else {
            return services.metrics.deviceLinkMessageIgnored("ack")
        }
        services.recorder.delivered(id)
        services.metrics.notificationAcknowledged()
        let now = services.clock.now()
        let services = self.services
        let deviceID = link.deviceID
        services.events.publish { [DeliveryEvents.delivered(uniqueID: uniqueID, deviceID: deviceID, at: now)] }
        if update.code == 101 {
            services.recordResponse(
                NotificationResponse(action: NotificationResponse.droppedByDevice, text: "the browser could not decrypt it (101)", at: now),
                to: uniqueID, deviceID: deviceID)
        }
    }

    private func send(_ text: String) {
        guard let context, !closed else { return }
        context.writeAndFlush(wrapOutboundOut(Self.textFrame(text, allocator: context.channel.allocator)), promise: nil)
    }

    private func close(code: WebSocketErrorCode) {
        guard !closed, let context else { return }
        closed = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
        context.close(promise: nil)
        unlink()
    }

    private func unlink() {
        guard let link else { return }
        self.link = nil
        services.hub.detach(link)
        link.close(.ended)
        services.metrics.deviceUnlinked()
    }

    private static func textFrame(_ text: String, allocator: ByteBufferAllocator) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(string: text))
    }
}
