import Crypto
import Foundation
import HeraldWire
import NIOCore

/// A plain TCP connection to a `--plaintext` gateway's device port that speaks WebSocket byte by byte,
/// so tests can be the device no client library would be: one that never answers a ping, sends unmasked
/// or fragmented frames, or plain HTTP.
final class RawDeviceLink: Sendable {
    /// A frame from the gateway.
    struct Frame: Equatable {
        var opcode: UInt8
        var payload: [UInt8]

        var text: String { String(decoding: payload, as: UTF8.self) }
        /// The close code and reason of a close frame.
        var close: (code: UInt16, reason: String)? {
            guard opcode == 0x8, payload.count >= 2 else { return nil }
            return (UInt16(payload[0]) << 8 | UInt16(payload[1]), String(decoding: payload.dropFirst(2), as: UTF8.self))
        }
    }

    private let connection: RawTCPConnection

    private init(connection: RawTCPConnection) {
        self.connection = connection
    }

    static func connect(port: Int) async throws -> RawDeviceLink {
        // Half-closure allowed, to answer the gateway's close after its FIN.
        RawDeviceLink(connection: try await RawTCPConnection.connect(port: port, halfClosure: true))
    }

    /// Connects, upgrades to a WebSocket at `path`, answers the challenge with `key` and waits for the welcome.
    static func linked(port: Int, key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) async throws -> RawDeviceLink {
        let link = try await connect(port: port)
        try await link.upgrade()
        guard case .challenge(let nonce) = try DeviceLinkMessage.decode(try await link.frame { $0.opcode == 0x1 }.text) else {
            throw RawDeviceLinkError("no challenge")
        }
        try await link.send(text: DeviceLinkMessage.hello(try DeviceIdentity.hello(answering: nonce, with: key)).encoded())
        guard case .welcome = try DeviceLinkMessage.decode(try await link.frame(after: 1) { $0.opcode == 0x1 }.text) else {
            throw RawDeviceLinkError("no welcome")
        }
        return link
    }

    func write(_ bytes: [UInt8]) async throws {
        try await connection.write(bytes)
    }

    /// Sends the upgrade request and waits for 101.
    func upgrade(path: String = DeviceLinkMessage.path) async throws {
        let key = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
        try await write(
            Array(
                ("GET \(path) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
        let response = try await bytes { Self.headerEnd(in: $0) != nil }
        guard String(buffer: response).hasPrefix("HTTP/1.1 101") else {
            throw RawDeviceLinkError("not upgraded: \(String(buffer: response).prefix(40))")
        }
    }

    /// One frame as a client sends it: masked unless told otherwise.
    func send(opcode: UInt8 = 0x1, fin: Bool = true, masked: Bool = true, _ payload: [UInt8]) async throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else {
            frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        if masked {
            let mask = (0..<4).map { _ in UInt8.random(in: .min ... .max) }
            frame += mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            frame += payload
        }
        try await write(frame)
    }

    func send(text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// The frames received so far (after the HTTP response).
    func frames() async throws -> [Frame] {
        Self.frames(in: try await connection.bytesSoFar())
    }

    /// The first frame after the first `skip` that match `condition`, waiting up to `timeout` for it.
    func frame(after skip: Int = 0, timeout: Duration = .seconds(20), where condition: (Frame) -> Bool) async throws -> Frame {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let matching = try await frames().filter(condition)
            if matching.count > skip { return matching[skip] }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RawDeviceLinkError("no such frame within \(timeout)")
    }

    /// The bytes received once `condition` holds for them, or after `timeout` whatever arrived.
    func bytes(until condition: @escaping @Sendable (ByteBuffer) -> Bool, timeout: Duration = .seconds(20)) async throws -> ByteBuffer {
        try await connection.bytes(until: condition, timeout: timeout)
    }

    /// True once the gateway closed its side of the connection, false if it is still open after `timeout`.
    func closed(within timeout: Duration) async throws -> Bool {
        try await connection.bytesUntilClosed(timeout: timeout) != nil
    }

    func close() async {
        await connection.close()
    }

    private static func headerEnd(in bytes: ByteBuffer) -> Int? {
        let view = Array(bytes.readableBytesView)
        guard view.count >= 4 else { return nil }
        return (0...(view.count - 4)).first { view[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }.map { $0 + 4 }
    }

    /// The server's (unmasked) frames after the HTTP response head.
    private static func frames(in bytes: ByteBuffer) -> [Frame] {
        guard let start = headerEnd(in: bytes) else { return [] }
        let view = Array(bytes.readableBytesView)
        var index = start
        var frames: [Frame] = []
        while view.count - index >= 2 {
            var length = Int(view[index + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard view.count - index >= 4 else { break }
                length = Int(view[index + 2]) << 8 | Int(view[index + 3])
                header = 4
            }
            guard view.count - index >= header + length else { break }
            frames.append(Frame(opcode: view[index] & 0x0F, payload: Array(view[(index + header)..<(index + header + length)])))
            index += header + length
        }
        return frames
    }
}

struct RawDeviceLinkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
