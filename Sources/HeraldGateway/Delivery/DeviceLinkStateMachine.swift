package import Foundation
import HeraldStore
package import HeraldWire
package import NIOCore
package import NIOWebSocket

/// The rules of one device link, without I/O: the hello that must come first, the device's messages
/// handled one at a time and in order, liveness by ping, and the closing handshake.
///
/// ``DeviceLinkHandler`` feeds it what happens on the connection and carries out the actions it returns.
/// `docs/device-link.md` is the protocol.
package struct DeviceLinkStateMachine {
    package enum Phase: Equatable, Sendable {
        /// The challenge is out; the first message must be a hello that answers it.
        case awaitingHello
        /// The hello is being checked and the device saved.
        case authenticating
        case linked
        /// The gateway sent its close frame and waits for the device's.
        case closing
        case closed
    }

    /// What the handler must do next.
    package enum Action: Equatable, Sendable {
        /// Check the hello against the challenge and save the device, then report ``authenticated()`` or
        /// ``failed(_:)``.
        case authenticate(DeviceLinkMessage.Hello)
        /// Record an acknowledgement; nothing to wait for.
        case acknowledge(UUID)
        /// Record the person's response to a notification; nothing to wait for.
        case recordResponse(uniqueID: UUID, action: String, text: String?)
        /// Answer a register or unregister (with the store), then report ``requestFinished()`` or ``failed(_:)``.
        case answer(DeviceLinkMessage)
        case sendPing
        /// Send this close frame and wait for the device's, at most the close timeout.
        case close(Closing)
        /// Send this close frame (if any) and close the connection at once.
        case closeNow(Closing?)
        /// Answer the device's close frame with the same code, then close the connection.
        case echoClose(WebSocketErrorCode)
    }

    /// A reason to close the link, sent in the close frame.
    package struct Closing: Error, Equatable, Sendable {
        package var code: WebSocketErrorCode
        package var reason: String
        /// What `/metrics` counts it as (`herald_device_link_closed_total{reason=…}`).
        package var kind: Kind

        package init(_ code: WebSocketErrorCode, _ reason: String, _ kind: Kind) {
            self.code = code
            self.reason = reason
            self.kind = kind
        }

        package static let replaced = Closing(.unknown(4001), "replaced by a newer link from the same device", .replaced)
        package static let shutdown = Closing(.goingAway, "the gateway is shutting down", .shutdown)

        /// Why the gateway ended a link or a connection to the device port, as `/metrics` labels it.
        package enum Kind: String, Sendable, CaseIterable {
            /// TLS and the WebSocket upgrade not done within the handshake timeout.
            case handshakeTimeout = "handshake_timeout"
            case helloTimeout = "hello_timeout"
            /// A hello whose key or signature does not answer this link's challenge (forged, replayed, another's).
            case authenticationFailed = "authentication_failed"
            /// Bad framing, or a message out of place (a gateway's message, anything before the hello).
            case protocolError = "protocol_error"
            /// Not UTF-8, not JSON, or not a device link message.
            case invalidMessage = "invalid_message"
            case binaryMessage = "binary_message"
            case messageTooLarge = "message_too_large"
            case noPong = "no_pong"
            /// The device's writes waited past the stalled-connection timeout: it reads nothing.
            case stalled
            case replaced
            case shutdown
            case storeUnavailable = "store_unavailable"
            /// The device closed; not counted.
            case byDevice = "by_device"
        }
    }

    /// Which timer the link needs now; the handler keeps exactly that one armed.
    package enum Timer: Equatable, Sendable {
        /// Fires once, at the hello deadline.
        case hello
        /// Fires every ping interval.
        case ping
        /// Fires once, when the device had long enough to answer the close frame.
        case closeTimeout
        case none
    }

    private(set) package var phase = Phase.awaitingHello
    /// A hello or request is being handled off the event loop; later messages wait, in order.
    private(set) package var isBusy = false
    private var waiting: [Result<DeviceLinkMessage, Closing>] = []
    /// A ping went out and nothing has been heard from the device since.
    private(set) package var isAwaitingPong = false
    private let helloTimeout: String
    private let pingInterval: String

    /// - Parameters:
    ///   - helloTimeout: How long a new link has to send its hello (named in the close reason).
    ///   - pingInterval: How often the link is pinged (named in the close reason of a link gone silent).
    package init(helloTimeout: TimeAmount, pingInterval: TimeAmount) {
        self.helloTimeout = Self.describe(helloTimeout)
        self.pingInterval = Self.describe(pingInterval)
    }

    package var isOpen: Bool {
        switch phase {
        case .awaitingHello, .authenticating, .linked: true
        case .closing, .closed: false
        }
    }

    package var timer: Timer {
        switch phase {
        case .awaitingHello: .hello
        case .authenticating, .linked: .ping
        case .closing: .closeTimeout
        case .closed: .none
        }
    }

    /// A message arrived: decoded, or the reason it could not be. Take actions with ``nextAction()``.
    package mutating func received(_ message: Result<DeviceLinkMessage, Closing>) {
        guard isOpen else { return }
        waiting.append(message)
    }

    /// Any frame arrived: the device is alive.
    package mutating func heard() {
        isAwaitingPong = false
    }

    /// The action for the next waiting message; nil while a hello or request is in progress, or when
    /// nothing waits.
    package mutating func nextAction() -> Action? {
        guard isOpen, !isBusy, !waiting.isEmpty else { return nil }
        let message = waiting.removeFirst()
        if waiting.isEmpty { waiting = [] }  // most links are idle: keep no buffer for them
        // A device that breaks the protocol fails the link (RFC 6455 §7.1.7): the close frame, then the connection
        // ends at once, not after reading on for the device's close frame (a flood of frames would be read meanwhile).
        switch (phase, message) {
        case (_, .failure(let closing)):
            return broken(closing)
        case (.awaitingHello, .success(.hello(let hello))):
            phase = .authenticating
            isBusy = true
            return .authenticate(hello)
        case (.awaitingHello, .success):
            return broken(Closing(.policyViolation, "the first message must be hello", .protocolError))
        case (.linked, .success(.ack(let uniqueID))):
            return .acknowledge(uniqueID)
        case (.linked, .success(.response(let uniqueID, let action, let text))):
            return .recordResponse(uniqueID: uniqueID, action: action, text: text)
        case (.linked, .success(.dropped(let uniqueID, let reason))):
            return .recordResponse(uniqueID: uniqueID, action: NotificationResponse.droppedByDevice, text: reason)
        case (.linked, .success(let request)) where request.isRequest:
            isBusy = true
            return .answer(request)
        case (_, .success(let message)):
            return broken(Closing(.protocolError, "a device may not send \(message.typeName) here", .protocolError))
        }
    }

    /// The hello was good and the device is saved: the link is open.
    package mutating func authenticated() {
        guard phase == .authenticating else { return }
        phase = .linked
        finishedWork()
    }

    /// A register or unregister was answered.
    package mutating func requestFinished() {
        finishedWork()
    }

    /// Reads resume; a pong that waited in the socket meanwhile gets a full interval to be read.
    private mutating func finishedWork() {
        isBusy = false
        isAwaitingPong = false
    }

    /// A hello or request failed; the link closes with `closing`.
    package mutating func failed(_ closing: Closing) -> Action? {
        isBusy = false
        guard isOpen else { return nil }
        return close(closing)
    }

    /// The link must end for a reason of the gateway's: a newer link, or shutdown.
    package mutating func closeRequested(_ closing: Closing) -> Action? {
        guard isOpen else { return nil }
        return close(closing)
    }

    /// The connection cannot go on (a frame the decoder refused, a device gone silent): close it at once,
    /// after a close frame that says why.
    package mutating func broken(_ closing: Closing) -> Action? {
        guard isOpen else { return nil }
        phase = .closed
        waiting = []
        return .closeNow(closing)
    }

    /// The device's close frame arrived.
    package mutating func closeReceived(code: WebSocketErrorCode?) -> Action? {
        switch phase {
        case .awaitingHello, .authenticating, .linked:
            phase = .closed
            waiting = []
            return .echoClose(code ?? .normalClosure)
        case .closing:
            phase = .closed
            return .closeNow(nil)
        case .closed:
            return nil
        }
    }

    /// The armed ``timer`` fired.
    package mutating func timerFired() -> Action? {
        switch phase {
        case .awaitingHello:
            return close(Closing(.policyViolation, "no hello within \(helloTimeout)", .helloTimeout))
        case .authenticating, .linked:
            // While a request is in progress reads are paused, so silence proves nothing.
            if isAwaitingPong, !isBusy {
                return broken(Closing(.goingAway, "no pong within \(pingInterval)", .noPong))
            }
            isAwaitingPong = true
            return .sendPing
        case .closing:
            phase = .closed
            return .closeNow(nil)
        case .closed:
            return nil
        }
    }

    /// The connection is gone.
    package mutating func connectionClosed() {
        phase = .closed
        waiting = []
    }

    private mutating func close(_ closing: Closing) -> Action {
        phase = .closing
        waiting = []
        return .close(closing)
    }

    private static func describe(_ time: TimeAmount) -> String {
        let milliseconds = time.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}

extension DeviceLinkMessage {
    /// A message the device sends that the gateway answers with the store.
    fileprivate var isRequest: Bool {
        switch self {
        case .register, .unregister, .subscribe, .unsubscribe: true
        default: false
        }
    }
}
