import HeraldWire
import NIOCore
import NIOWebSocket

/// The frames of the device link: JSON text messages and close frames.
extension DeviceLinkHandler {
    static func textFrame(_ message: DeviceLinkMessage, allocator: ByteBufferAllocator) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(bytes: message.encodedUTF8()))
    }

    /// A close frame; the reason is cut to the 123 bytes a control frame has room for.
    static func closeFrame(_ closing: Closing, allocator: ByteBufferAllocator) -> WebSocketFrame {
        var reason = Substring(closing.reason)
        while reason.utf8.count > 123 { reason = reason.dropLast() }
        var data = allocator.buffer(capacity: 2 + reason.utf8.count)
        data.write(webSocketErrorCode: closing.code)
        data.writeString(String(reason))
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    /// A text message read as a device link message, or the reason to close (1007).
    static func decode(_ data: ByteBuffer) -> Result<DeviceLinkMessage, Closing> {
        guard let text = String(validating: data.readableBytesView, as: UTF8.self) else {
            return .failure(Closing(.dataInconsistentWithMessage, "malformed message: not UTF-8", .invalidMessage))
        }
        do {
            return .success(try DeviceLinkMessage.decode(text))
        } catch {
            return .failure(Closing(.dataInconsistentWithMessage, "malformed message: \(error)", .invalidMessage))
        }
    }
}
