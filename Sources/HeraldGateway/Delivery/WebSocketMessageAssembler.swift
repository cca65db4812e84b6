package import NIOCore
package import NIOWebSocket

/// Joins the frames of a fragmented WebSocket message, checking what RFC 6455 asks of a client's frames
/// on the way: masked, no reserved bits, continuations only inside a message, and the whole message
/// within the size limit and ``fragmentLimit`` frames (empty continuations would otherwise go on for ever).
/// Control frames (ping, pong, close) pass through between fragments.
package struct WebSocketMessageAssembler {
    /// A complete data message, or a control frame.
    package enum Output: Equatable {
        case text(ByteBuffer)
        case binary(ByteBuffer)
        case control(WebSocketOpcode, ByteBuffer)
    }

    /// The most frames one message may come in.
    package static let fragmentLimit = 64

    private let limit: Int
    private var partial: (opcode: WebSocketOpcode, data: ByteBuffer, fragments: Int)?

    /// - Parameter limit: The largest message, in bytes, once its fragments are joined.
    package init(limit: Int) {
        self.limit = limit
    }

    /// Takes one frame; returns a message when it is complete, nil while fragments are still to come.
    ///
    /// - Throws: ``DeviceLinkStateMachine/Closing`` with 1002 (a framing rule broken) or 1009 (too big).
    package mutating func append(_ frame: WebSocketFrame) throws(DeviceLinkStateMachine.Closing) -> Output? {
        guard frame.maskKey != nil, frame.reservedBits.isEmpty else {
            throw .init(.protocolError, "frames from a device must be masked and use no reserved bits", .protocolError)
        }
        switch frame.opcode {
        case .text, .binary:
            guard partial == nil else { throw .init(.protocolError, "a new message began before the last one ended", .protocolError) }
            guard frame.fin else {
                partial = (frame.opcode, frame.unmaskedData, 1)
                return nil
            }
            return Self.message(frame.opcode, frame.unmaskedData)
        case .continuation:
            guard var message = partial else { throw .init(.protocolError, "a continuation frame outside a message", .protocolError) }
            guard message.data.readableBytes + frame.length <= limit else {
                throw .init(.messageTooLarge, "a message over \(limit) bytes", .messageTooLarge)
            }
            message.fragments += 1
            guard message.fragments <= Self.fragmentLimit else {
                throw .init(.messageTooLarge, "a message in more than \(Self.fragmentLimit) frames", .messageTooLarge)
            }
            var data = frame.unmaskedData
            message.data.writeBuffer(&data)
            guard frame.fin else {
                partial = message
                return nil
            }
            partial = nil
            return Self.message(message.opcode, message.data)
        case .ping, .pong, .connectionClose:
            return .control(frame.opcode, frame.unmaskedData)
        default:
            throw .init(.protocolError, "unknown opcode \(frame.opcode)", .protocolError)
        }
    }

    private static func message(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> Output {
        opcode == .text ? .text(data) : .binary(data)
    }
}
