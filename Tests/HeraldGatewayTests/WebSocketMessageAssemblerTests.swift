import HeraldGateway
import NIOCore
import NIOWebSocket
import Testing

/// Fragmented messages and the framing rules for a device's frames, without sockets.
@Suite struct WebSocketMessageAssemblerTests {
    private let mask = WebSocketMaskingKey([1, 2, 3, 4])!

    private func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true, masked: Bool = true) -> WebSocketFrame {
        var data = ByteBuffer(string: text)
        if masked { data.webSocketMask(mask) }
        return WebSocketFrame(fin: fin, opcode: opcode, maskKey: masked ? mask : nil, data: data)
    }

    @Test func fragmentsAreJoinedAndControlFramesPassBetweenThem() throws {
        var assembler = WebSocketMessageAssembler(limit: 100)
        #expect(try assembler.append(frame(.text, "{\"type\":", fin: false)) == nil)
        #expect(try assembler.append(frame(.ping, "p")) == .control(.ping, ByteBuffer(string: "p")))
        #expect(try assembler.append(frame(.continuation, "\"ack\"", fin: false)) == nil)
        #expect(try assembler.append(frame(.continuation, "}")) == .text(ByteBuffer(string: "{\"type\":\"ack\"}")))
        #expect(try assembler.append(frame(.binary, "b")) == .binary(ByteBuffer(string: "b")))
    }

    @Test func theLimitCountsTheWholeMessage() throws {
        var assembler = WebSocketMessageAssembler(limit: 10)
        _ = try assembler.append(frame(.text, "123456", fin: false))
        #expect(throws: DeviceLinkStateMachine.Closing(.messageTooLarge, "a message over 10 bytes", .messageTooLarge)) {
            try assembler.append(frame(.continuation, "78901"))
        }
    }

    /// Empty continuations add nothing to the size, so the number of frames is held too.
    @Test func aMessageInTooManyFramesIsRefused() throws {
        var assembler = WebSocketMessageAssembler(limit: 100)
        _ = try assembler.append(frame(.text, "{", fin: false))
        for _ in 2..<WebSocketMessageAssembler.fragmentLimit {
            #expect(try assembler.append(frame(.continuation, "", fin: false)) == nil)
        }
        #expect(try assembler.append(frame(.continuation, "}")) == .text(ByteBuffer(string: "{}")))
        _ = try assembler.append(frame(.text, "{", fin: false))
        for _ in 2...WebSocketMessageAssembler.fragmentLimit { _ = try assembler.append(frame(.continuation, "", fin: false)) }
        #expect(throws: DeviceLinkStateMachine.Closing(.messageTooLarge, "a message in more than 64 frames", .messageTooLarge)) {
            try assembler.append(frame(.continuation, ""))
        }
    }

    @Test(arguments: [
        [("continuation", false)],  // a continuation with no message
        [("text", false), ("text", true)],  // a new message before the last one ended
        [("unmasked", true)],
    ])
    func framingErrorsClose1002(frames: [(String, Bool)]) throws {
        var assembler = WebSocketMessageAssembler(limit: 100)
        var thrown: DeviceLinkStateMachine.Closing?
        for (kind, fin) in frames {
            let next =
                switch kind {
                case "continuation": frame(.continuation, "x", fin: fin)
                case "unmasked": frame(.text, "x", fin: fin, masked: false)
                default: frame(.text, "x", fin: fin)
                }
            do { _ = try assembler.append(next) } catch { thrown = error }
        }
        #expect(thrown?.code == .protocolError)
    }
}
