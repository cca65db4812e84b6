import Crypto
import Foundation
import HeraldHTTP2
import HeraldStore
import HeraldTesting
import HeraldWire
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import HeraldGateway

/// A provider connection's timers on virtual time: the handler `herald serve` puts after HTTP/2, on a testing
/// channel whose clock the test moves.
@Suite struct ProviderConnectionTimeTests {
    /// The provider handler on a testing channel: the client's frames written as bytes (its preface first), the
    /// server's bytes read back as frames.
    struct Pipeline {
        let channel: NIOAsyncTestingChannel
        let connection: NIOLoopBound<ProviderConnection>
        let store: SQLiteStore
        private let prefaceSent = Flag()

        /// - Parameters:
        ///   - sendsSettings: Whether the client's preface and SETTINGS arrive at once.
        ///   - initialWindow: The client's SETTINGS_INITIAL_WINDOW_SIZE: the send window of each answer's stream.
        init(
            sendsSettings: Bool = true, initialWindow: UInt32 = 65_535, configure: (inout GatewayConfiguration) -> Void = { _ in }
        ) async throws {
            var configuration = GatewayConfiguration()
            configure(&configuration)
            let store = try SQLiteStore(path: TemporaryPath.make("herald-time", suffix: ".sqlite"))
            self.store = store
            let metrics = GatewayMetrics()
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let writer = NotificationWriter(
                store: store, batchLimit: configuration.writeBatchLimit, queueLimit: configuration.writeQueueLimit,
                metrics: metrics, logger: logger, onCommitted: { _ in }
            )
            let processor = ProviderRequestProcessor(
                configuration: configuration, directory: Directory(store: store, configuration: configuration), store: store,
                writer: writer, hub: DeviceHub(), clock: SystemWallClock(), metrics: metrics,
                faults: FaultRules(store: store, enabled: false, clock: SystemWallClock(), logger: logger), events: DeliveryEvents(),
                logger: logger
            )
            channel = NIOAsyncTestingChannel()
            let (channel, settings) = (self.channel, configuration)
            connection = try await channel.testingEventLoop.executeInContext {
                let connection = ProviderConnection(channel: channel)
                try channel.pipeline.syncOperations.addHandler(
                    ProviderConnectionHandler(
                        connection: connection, processor: processor, metrics: metrics, configuration: settings
                    ))
                return NIOLoopBound(connection, eventLoop: channel.eventLoop)
            }
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).get()
            if sendsSettings { try await self.settings(initialWindow: initialWindow) }
        }

        /// Writes one frame from the client (its preface before the first).
        func write(_ type: FrameType, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) async throws {
            var bytes = ByteBuffer()
            if !prefaceSent.set() { bytes.writeBytes(FrameReader.preface) }
            FrameWriter.header(FrameHeader(length: payload.count, type: type.rawValue, flags: flags, streamID: stream), into: &bytes)
            bytes.writeBytes(payload)
            try await channel.writeInbound(bytes)
        }

        func settings(initialWindow: UInt32 = 65_535) async throws {
            try await write(.settings, [0, 4] + withUnsafeBytes(of: initialWindow.bigEndian, Array.init))
        }

        func ping() async throws { try await write(.ping, [UInt8](repeating: 1, count: 8)) }

        /// A header block of literals that leave the server's table alone.
        static func block(_ fields: [(String, String)]) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 16 })
            let count = bytes.withUnsafeMutableBytes { out in
                var writer = HPACKWriter(out: out)
                for (name, value) in fields {
                    writer.integer(0, prefix: 4, flags: 0x00)
                    writer.string(name)
                    writer.string(value)
                }
                return writer.count
            }
            return Array(bytes.prefix(count))
        }

        /// Sends a request to an unknown device token and waits for its answer's reason.
        func answer(on id: UInt32, authorization: String) async throws -> String? {
            try await send(on: id, authorization: authorization)
            for _ in 0..<1_000 {
                for (header, payload) in try await written() where header.streamID == id && header.knownType == .data {
                    return try JSONValue.parse(Data(payload))["reason"]?.stringValue
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            return nil
        }

        /// Sends a request to an unknown device token.
        func send(on id: UInt32, authorization: String) async throws {
            let headers = Self.block([
                (":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + String(repeating: "ab", count: 32)),
                ("authorization", authorization), ("apns-topic", "com.example.app"),
            ])
            try await write(.headers, flags: FrameHeader.Flag.endHeaders, stream: id, headers)
            try await write(.data, flags: FrameHeader.Flag.endStream, stream: id, Array(#"{"aps":{"alert":"hi"}}"#.utf8))
        }

        /// Every frame written so far.
        func written() async throws -> [(header: FrameHeader, payload: [UInt8])] {
            var bytes = ByteBuffer(bytes: FrameReader.preface)
            while var more = try await channel.readOutbound(as: ByteBuffer.self) { bytes.writeBuffer(&more) }
            var reader = FrameReader(maximumFrameSize: 1 << 24)
            reader.append(&bytes)
            var frames: [(header: FrameHeader, payload: [UInt8])] = []
            while let (header, payload) = try reader.next() { frames.append((header, Array(payload.readableBytesView))) }
            return frames
        }

        /// The GOAWAY among `frames`: its last stream id and its reason.
        static func goAway(in frames: [(header: FrameHeader, payload: [UInt8])]) -> (lastStreamID: UInt32, reason: String?)? {
            guard let frame = frames.first(where: { $0.header.knownType == .goAway }) else { return nil }
            let last = frame.payload.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let reason = (try? JSONValue.parse(Data(frame.payload.dropFirst(8))))?["reason"]?.stringValue
            return (last, reason)
        }
    }

    @Test func anIdleConnectionGetsGoAwayIdleTimeoutAndCloses() async throws {
        let pipeline = try await Pipeline {
            $0.idleTimeout = .seconds(3600)
            $0.unusedConnectionTimeout = .seconds(7200)
        }
        _ = try await pipeline.written()  // the connection window
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(3599))
        #expect(Pipeline.goAway(in: try await pipeline.written()) == nil)
        #expect(pipeline.channel.isActive)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(1))
        let goAway = try #require(Pipeline.goAway(in: try await pipeline.written()))
        #expect(goAway.reason == "IdleTimeout" && goAway.lastStreamID == 0)
        #expect(!pipeline.channel.isActive)
    }

    /// Any frame read or written moves idleness a full timeout on.
    @Test func activityPostponesIdleness() async throws {
        let pipeline = try await Pipeline {
            $0.idleTimeout = .seconds(60)
            $0.unusedConnectionTimeout = .seconds(7200)
        }
        _ = try await pipeline.written()
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(50))
        try await pipeline.ping()
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(50))  // 100 s in, 50 s after the ping
        #expect(Pipeline.goAway(in: try await pipeline.written()) == nil)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(10))
        #expect(Pipeline.goAway(in: try await pipeline.written())?.reason == "IdleTimeout")
    }

    /// A request opened and never finished cannot hold the connection: idle, then the grace period, then closed.
    @Test func aStreamThatNeverEndsCannotHoldTheConnectionOpen() async throws {
        let pipeline = try await Pipeline {
            $0.idleTimeout = .seconds(5)
            $0.shutdownGracePeriod = .seconds(10)
        }
        let headers = Pipeline.block([(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + String(repeating: "ab", count: 32))])
        try await pipeline.write(.headers, flags: FrameHeader.Flag.endHeaders, stream: 1, headers)
        _ = try await pipeline.written()
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(5))  // idle: closing starts, the GOAWAY waits
        #expect(Pipeline.goAway(in: try await pipeline.written()) == nil)
        #expect(pipeline.channel.isActive)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(10))  // the grace period ends it
        let goAway = try #require(Pipeline.goAway(in: try await pipeline.written()))
        #expect(goAway.reason == "IdleTimeout" && goAway.lastStreamID == 1)
        #expect(!pipeline.channel.isActive)
    }

    /// A client that has not sent the HTTP/2 preface (and TLS before it) within the handshake timeout of its accept is
    /// cut off, so that connections opened and left silent cannot pile up for the hour of the idle timeout.
    @Test func aConnectionWithoutThePrefaceInTimeIsClosed() async throws {
        let silent = try await Pipeline(sendsSettings: false) { $0.providerHandshakeTimeout = .seconds(10) }
        await silent.channel.testingEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(silent.channel.isActive)
        await silent.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!silent.channel.isActive)

        let late = try await Pipeline(sendsSettings: false) {
            $0.providerHandshakeTimeout = .seconds(10)
            $0.unusedConnectionTimeout = .seconds(7200)
        }
        await late.channel.testingEventLoop.advanceTime(by: .seconds(9))
        try await late.settings()
        await late.channel.testingEventLoop.advanceTime(by: .seconds(60))
        #expect(late.channel.isActive)
    }

    /// A connection on which no request has shown its sender within the unused-connection timeout of its accept gets
    /// GOAWAY `IdleTimeout`, however many PINGs and refused requests it sends; once a request carried a valid provider
    /// token (even one refused for its device token), only the idle timeout applies.
    @Test func aConnectionWithoutAnAcceptedRequestIsClosedAfterTheUnusedTimeout() async throws {
        let configure: (inout GatewayConfiguration) -> Void = {
            $0.unusedConnectionTimeout = .seconds(20)
            $0.idleTimeout = .seconds(3600)
        }
        let unused = try await Pipeline(configure: configure)
        for _ in 0..<3 {
            await unused.channel.testingEventLoop.advanceTime(by: .seconds(6))
            try await unused.ping()
        }
        #expect(try await unused.answer(on: 1, authorization: "bearer x.y.z") == "InvalidProviderToken")
        await unused.channel.testingEventLoop.advanceTime(by: .milliseconds(1_999))  // 19.999 s after the accept
        #expect(Pipeline.goAway(in: try await unused.written()) == nil)
        await unused.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(Pipeline.goAway(in: try await unused.written())?.reason == "IdleTimeout")
        #expect(!unused.channel.isActive)

        let used = try await Pipeline(configure: configure)
        await used.channel.testingEventLoop.advanceTime(by: .seconds(5))
        let signingKey = P256.Signing.PrivateKey()
        try await used.store.saveKey(
            ProviderKey(
                teamID: "TEAM123456", keyID: "KEY1234567", topics: [], environment: .development,
                publicKeyPEM: signingKey.publicKey.pemRepresentation, createdAt: Date()))
        let jwt = try ProviderToken.sign(teamID: "TEAM123456", keyID: "KEY1234567", issuedAt: Date(), key: signingKey)
        #expect(try await used.answer(on: 1, authorization: "bearer \(jwt)") == "BadDeviceToken")
        await used.channel.testingEventLoop.advanceTime(by: .seconds(600))
        #expect(Pipeline.goAway(in: try await used.written()) == nil)
        #expect(used.channel.isActive)
    }

    /// An error answer's DATA that the client's flow-control window never lets out (a window of 0) closes the
    /// connection after the stalled-connection timeout; DATA that goes out in time does not.
    @Test func anAnswerHeldByAClosedWindowClosesTheConnectionOnceStalled() async throws {
        let pipeline = try await Pipeline(initialWindow: 0) {
            $0.stalledConnectionTimeout = .seconds(30)
            $0.unusedConnectionTimeout = .seconds(7200)
        }
        func sendBadRequest(on id: UInt32) async throws {
            try await pipeline.send(on: id, authorization: "bearer x.y.z")
            var answered = false
            for _ in 0..<1_000 where !answered {
                answered = try await pipeline.written().contains { $0.header.streamID == id && $0.header.knownType == .headers }
                if !answered { try await Task.sleep(for: .milliseconds(5)) }
            }
            try #require(answered)  // the 403's HEADERS; its DATA waits for the window
        }

        try await sendBadRequest(on: 1)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(20))
        try await pipeline.write(.windowUpdate, stream: 1, [0, 0, 0x10, 0])  // it goes out after 20 s
        #expect(try await pipeline.written().contains { $0.header.streamID == 1 && $0.header.knownType == .data })
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(60))
        #expect(pipeline.channel.isActive)

        try await sendBadRequest(on: 3)
        await pipeline.channel.testingEventLoop.advanceTime(by: .milliseconds(29_999))
        #expect(pipeline.channel.isActive)
        await pipeline.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!pipeline.channel.isActive)
    }

    /// While the client reads nothing (the connection cannot take more writes), the handler asks for no more reads,
    /// and resumes once it can write; writes blocked for the stalled-connection timeout close the connection.
    @Test func aClientThatStopsReadingIsNotReadAndIsClosedOnceStalled() async throws {
        let pipeline = try await Pipeline {
            $0.stalledConnectionTimeout = .seconds(30)
            $0.unusedConnectionTimeout = .seconds(7200)
        }
        let reads = ReadCounter()
        try await pipeline.channel.testingEventLoop.executeInContext {
            try pipeline.channel.pipeline.syncOperations.addHandler(reads, position: .first)
        }
        func setWritable(_ writable: Bool) async throws {
            pipeline.channel.isWritable = writable
            try await pipeline.channel.testingEventLoop.executeInContext { pipeline.channel.pipeline.fireChannelWritabilityChanged() }
        }
        func read() async throws {
            try await pipeline.channel.testingEventLoop.executeInContext { pipeline.channel.read() }
        }
        try await read()
        #expect(reads.count == 1)
        try await setWritable(false)
        try await read()
        #expect(reads.count == 1)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(20))
        try await setWritable(true)  // the held read goes through
        #expect(reads.count == 2)
        await pipeline.channel.testingEventLoop.advanceTime(by: .seconds(20))
        #expect(pipeline.channel.isActive)  // 40 s in, but never 30 s blocked at once

        try await setWritable(false)
        await pipeline.channel.testingEventLoop.advanceTime(by: .milliseconds(29_999))
        #expect(pipeline.channel.isActive)
        await pipeline.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!pipeline.channel.isActive)
    }

    /// Counts the reads that reach the head of the pipeline (the socket).
    final class ReadCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = Any
        private let reads = Mutex(0)

        var count: Int { reads.withLock { $0 } }

        func read(context: ChannelHandlerContext) {
            reads.withLock { $0 += 1 }
            context.read()
        }
    }

    /// Shutdown with nothing in flight: the GOAWAY at once, no waiting for the grace period.
    @Test func shutdownOfAQuietConnectionIsImmediate() async throws {
        let pipeline = try await Pipeline()
        _ = try await pipeline.written()
        let connection = pipeline.connection
        try await pipeline.channel.testingEventLoop.executeInContext { connection.value.startDraining(.shutdown) }
        #expect(Pipeline.goAway(in: try await pipeline.written())?.reason == "Shutdown")
        #expect(!pipeline.channel.isActive)
    }
}

/// Whether something happened yet, shared by the copies of a test's pipeline.
private final class Flag: Sendable {
    private let value = Mutex(false)

    /// Sets it; whether it was set before.
    func set() -> Bool {
        value.withLock { value in
            defer { value = true }
            return value
        }
    }
}
