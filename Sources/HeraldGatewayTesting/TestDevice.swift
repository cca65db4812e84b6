public import Crypto
import Foundation
import HeraldGateway
import HeraldTesting
public import HeraldWire
import HummingbirdWSClient
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket

/// A device on a real device link, driven step by step: what it receives is queued for the test,
/// and it acknowledges only when told to (so tests can drop links with deliveries in flight).
public final class TestDevice: Sendable {
    private enum Command: Sendable {
        case text(String)
        case binary([UInt8])
        case close
    }

    public let key: P256.Signing.PrivateKey
    public let deviceID: String
    /// Messages received and not yet taken, and whether the link has ended.
    private let mailbox = Watched(Mailbox())
    private let commands: AsyncStream<Command>.Continuation
    private let session: Task<String, any Error>

    /// Connects to `gateway`'s device port and, unless `authenticate` is false, answers the challenge
    /// and waits for `welcome`.
    public static func connect(
        to gateway: TestGateway,
        key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(),
        authenticate: Bool = true
    ) async throws -> TestDevice {
        let port = try await gateway.gateway.devicePort()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(gateway.caPath))
        let device = TestDevice(url: "wss://localhost:\(port)\(DeviceLinkMessage.path)", tls: tls, key: key)
        if authenticate {
            guard case .challenge(let nonce)? = try await device.next() else { throw TestDeviceError("no challenge") }
            device.send(.hello(try DeviceIdentity.hello(answering: nonce, with: key)))
            guard case .welcome? = try await device.next() else { throw TestDeviceError("no welcome") }
        }
        return device
    }

    private init(url: String, tls: TLSConfiguration, key: P256.Signing.PrivateKey) {
        self.key = key
        deviceID = DeviceIdentity.deviceID(of: key.publicKey)
        let (commandStream, commands) = AsyncStream.makeStream(of: Command.self)
        let mailbox = self.mailbox
        self.commands = commands
        session = Task {
            defer { mailbox.update { $0.finished = true } }
            let close = try await WebSocketClient.connect(
                url: url,
                configuration: .init(maxFrameSize: 1 << 16),
                tlsConfiguration: tls,
                logger: Logger(label: "test-device", factory: { _ in SwiftLogNoOpLogHandler() })
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await command in commandStream {
                            switch command {
                            case .text(let text): try await outbound.write(.text(text))
                            case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                            case .close:
                                try await outbound.close(.normalClosure, reason: "test device leaves")
                                return
                            }
                        }
                    }
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        if case .text(let text) = message, let decoded = try? DeviceLinkMessage.decode(text) {
                            mailbox.update { $0.messages.append(decoded) }
                        }
                    }
                    group.cancelAll()
                }
            }
            guard let close else { return "closed without a close frame" }
            return "\(close.closeCode): \(close.reason ?? "")"
        }
    }

    public func send(_ message: DeviceLinkMessage) {
        commands.yield(.text(message.encoded()))
    }

    public func sendRaw(_ text: String) {
        commands.yield(.text(text))
    }

    public func sendBinary(_ bytes: [UInt8]) {
        commands.yield(.binary(bytes))
    }

    /// The next message from the gateway; nil once the link closed or after `timeout`.
    public func next(timeout: Duration = .seconds(20)) async throws -> DeviceLinkMessage? {
        await mailbox.take(timeout: timeout, when: { !$0.messages.isEmpty || $0.finished }) { state in
            state.messages.isEmpty ? nil : state.messages.removeFirst()
        } ?? nil
    }

    /// Registers `topic` and returns the token.
    public func register(_ topic: String) async throws -> String {
        send(.register(topic: topic))
        guard case .registered(_, let token, _, _, _)? = try await next() else { throw TestDeviceError("no registered for \(topic)") }
        return token
    }

    /// Registers the push-to-start token (`kind` `.pushToStart`) or an activity's token of `topic` and returns it.
    public func register(_ topic: String, kind: TokenKind, activityID: String? = nil) async throws -> String {
        send(.register(topic: topic, kind: kind, activityID: activityID))
        let answer = try await next()
        guard case .registered(_, let token, kind, activityID, _)? = answer else {
            throw TestDeviceError("no registered for the \(kind.rawValue) token of \(topic): \(answer.map { $0.encoded() } ?? "nothing")")
        }
        return token
    }

    /// Subscribes to a channel of the test app whose kept broadcast comes with the answer (in either order); returns
    /// the broadcast.
    public func subscribing(to channelID: String, topic: String = TestGateway.topic) async throws -> LinkNotification {
        send(.subscribe(topic: topic, channelID: channelID))
        var subscribed = false
        var broadcast: LinkNotification?
        while !subscribed || broadcast == nil {
            switch try await next() {
            case .subscribed(topic, channelID)?: subscribed = true
            case .notification(let notification)? where notification.channelID == channelID: broadcast = notification
            case let other: throw TestDeviceError("subscribing to \(channelID): \(other.map { $0.encoded() } ?? "nothing")")
            }
        }
        return broadcast!  // set: the loop ends with it
    }

    /// Subscribes to the channel of `topic`; fails unless the gateway answers `subscribed`.
    public func subscribe(_ topic: String, channelID: String) async throws {
        send(.subscribe(topic: topic, channelID: channelID))
        guard case .subscribed(topic, channelID)? = try await next() else {
            throw TestDeviceError("no subscribed for channel \(channelID)")
        }
    }

    /// The next notification; fails if something else (or nothing) comes.
    public func notification(timeout: Duration = .seconds(20)) async throws -> LinkNotification {
        let message = try await next(timeout: timeout)
        guard case .notification(let notification)? = message else {
            throw TestDeviceError("expected a notification, got \(message.map { "\($0.typeName)" } ?? "nothing")")
        }
        return notification
    }

    public func acknowledge(_ notification: LinkNotification) {
        send(.ack(uniqueID: notification.uniqueID))
    }

    /// Leaves with a normal close and returns how the link ended.
    @discardableResult
    public func leave() async -> String {
        commands.yield(.close)
        return await closed()
    }

    /// Waits for the gateway to close the link; returns its close code and reason.
    public func closed() async -> String {
        do {
            return try await session.value
        } catch {
            return "error: \(error)"
        }
    }
}

/// What a test device received and has not taken yet, and whether its link has ended.
private struct Mailbox: Sendable {
    var messages: [DeviceLinkMessage] = []
    var finished = false
}

public struct TestDeviceError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
