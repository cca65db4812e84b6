import Crypto
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import NIOHPACK
import Testing

/// APNs' HTTP/2 connection behaviour: stream limits, idle and error closes, graceful shutdown.
@Suite struct ProviderConnectionTests {
    @Test func oneStreamUntilAValidTokenSucceeds() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        try await connection.ping()
        #expect(connection.observedState.maximumConcurrentStreams == 1)
        #expect(try await connection.send(try await gateway.push { $0.jwt = nil }).status == 403)
        #expect(connection.observedState.maximumConcurrentStreams == 1)
        #expect(try await connection.send(try await gateway.push()).status == 200)
        try await connection.ping()
        #expect(connection.observedState.maximumConcurrentStreams == 1000)
        try await gateway.stop()
    }

    @Test func authenticationFailureDropsTheLimitAgain() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        #expect(try await connection.send(try await gateway.push()).status == 200)
        gateway.clock.advance(by: 3700)  // the connection's token is now older than an hour
        #expect(
            try await connection.send(
                try await gateway.push {
                    $0.jwt = nil
                    $0.extraHeaders = []
                }
            ).reason == .missingProviderToken)
        try await connection.ping()
        #expect(connection.observedState.maximumConcurrentStreams == 1)
        try await gateway.stop()
    }

    /// An answer's ids never repeat, so answers add nothing to the client's HPACK table: each block is a static index
    /// and literals, the same bytes but for the id.
    @Test func answersLeaveTheClientsHPACKTableAlone() async throws {
        let gateway = try await TestGateway.start { $0.plaintext = true }
        let path = "/3/device/\(try await gateway.issueToken())"
        let raw = try await RawHTTP2Connection.connect(port: gateway.gateway.providerPort)
        // No token: each request is answered 403 at once.
        let ids = (1...3).map { "00000000-0000-0000-0000-00000000000\($0)" }
        for (index, id) in ids.enumerated() {
            let request = RawHTTP2Connection.requestHeaders(path: path) + RawHTTP2Connection.literal("apns-id", id)
            try await raw.write(RawHTTP2Connection.frame(type: 0x1, flags: 0x5, stream: UInt32(2 * index + 1), payload: request))
            _ = try await raw.bytes(until: { RawHTTP2Connection.headerBlocks(in: $0).count > index })
        }
        let blocks = RawHTTP2Connection.headerBlocks(in: try await raw.bytes(until: { _ in true }))
        try #require(blocks.count == 3)

        var decoder = HPACKDecoder(allocator: .init())
        let answers = try blocks.map { block in
            var buffer = ByteBuffer(bytes: block)
            return try decoder.decodeHeaders(from: &buffer)
        }
        #expect(answers.map { $0.first(name: ":status") } == ["403", "403", "403"])
        #expect(answers.map { $0.first(name: "apns-id") } == ids)
        #expect(answers.map { $0.first(name: "content-type") } == Array(repeating: "application/json", count: 3))
        // `:status` 403 and the names as literals not indexed (first byte 0x0_), the id raw: the blocks differ only
        // where the ids do.
        #expect(blocks.allSatisfy { $0.first == 0x08 && $0.count == blocks[0].count })
        #expect(zip(blocks[0], blocks[1]).filter { $0 != $1 }.count == 1)
        try await gateway.stop()
    }

    /// Providers share one token across connections: a new connection may start with a token near the end of its
    /// hour and must be able to take the next one at once. A token dated ahead of the clock is not valid.
    @Test func providerTokensAreJudgedByTheirIssueTime() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let ageing = try gateway.jwt(issuedAt: gateway.clock.now().addingTimeInterval(-3595))
        #expect(try await connection.send(try await gateway.push { $0.jwt = ageing }).status == 200)
        let next = try gateway.jwt()
        #expect(try await connection.send(try await gateway.push { $0.jwt = next }).status == 200)

        let future = try gateway.jwt(issuedAt: gateway.clock.now().addingTimeInterval(10 * 365 * 86400))
        let fresh = try await gateway.connect()
        #expect(try await fresh.send(try await gateway.push { $0.jwt = future }).reason == .invalidProviderToken)
        try await gateway.stop()
    }

    /// A Python client signing `iat` as `time.time()` (a fraction) gets 200, as from Apple.
    @Test func providerTokensWithAFractionalIssueTimeAreAccepted() async throws {
        let gateway = try await TestGateway.start()
        let connection = try await gateway.connect()
        let claims = #"{"iss":"\#(TestGateway.teamID)","iat":\#(gateway.clock.now().timeIntervalSince1970 - 0.48)}"#
        let input =
            Base64URL.encode(Data(#"{"alg":"ES256","kid":"\#(TestGateway.keyID)","typ":"JWT"}"#.utf8)) + "."
            + Base64URL.encode(Data(claims.utf8))
        let jwt = input + "." + Base64URL.encode(try gateway.privateKey.signature(for: Data(input.utf8)).rawRepresentation)
        #expect(try await connection.send(try await gateway.push { $0.jwt = jwt }).status == 200)
        try await gateway.stop()
    }

    @Test func tooManyErrorsCloseTheConnection() async throws {
        let gateway = try await TestGateway.start { $0.connectionErrorBudget = 3 }
        let connection = try await gateway.connect()
        let gone = try await gateway.push()
        _ = try await gateway.store.retireDevice(DeviceToken(hex: gone.token)!, as: .unregistered, at: gateway.clock.now())
        for _ in 0..<3 { #expect(try await connection.send(gone).status == 410) }  // 410 is not an error
        #expect(connection.isActive)
        for _ in 0..<3 { #expect(try await connection.send(try await gateway.push { $0.priority = 3 }).reason == .badPriority) }
        await connection.waitUntilClosed()
        #expect(connection.observedState.goAwayReason == .badPriority)
        let fresh = try await gateway.connect()
        #expect(try await fresh.send(try await gateway.push()).status == 200)
        try await gateway.stop()
    }

    /// Requests open when the shutdown begins are answered before the GOAWAY: clients that take any frame after a
    /// GOAWAY for an error (Python's h2) read them all. One that completes after the shutdown began is refused.
    @Test func gracefulShutdownAnswersOpenRequestsBeforeItsGoAway() async throws {
        let log = LogCapture()
        // A grace period far longer than the test: a slow (parallel) run must not see it end while an answer is owed.
        let gateway = try await TestGateway.start(logger: log.logger()) { $0.shutdownGracePeriod = .seconds(120) }
        let store = try #require(gateway.store as? FaultInjectingStore)
        let connection = try await gateway.connect()
        #expect(try await connection.send(try await gateway.push()).status == 200)

        store.holdWrites()
        let inFlight = try await gateway.push()
        let accepted = Task { try await connection.send(inFlight) }
        #expect(await store.waitForHeldWrites())
        let late = try await connection.startRequest(headers: try await gateway.push().headers)
        try await connection.ping()  // the gateway has seen the late stream open before it starts draining

        let stopping = Task { try await gateway.stop() }
        #expect(await log.wait(forLineContaining: "provider API shutting down"))
        // A request whose stream was open before the shutdown but completes after it is refused as APNs does.
        let refused = try await late.finish(body: Data(#"{"aps":{"alert":"late"}}"#.utf8))
        #expect(refused.reason == .shutdown)
        #expect(refused.status == 503)
        try await connection.ping()  // anything the gateway sent with its answer came before the ping's answer
        #expect(!connection.observedState.goAwayReceived)  // the accepted request is still owed its answer

        store.releaseWrites()
        let response = try await accepted.value
        #expect(response.status == 200)
        await connection.waitUntilClosed()
        #expect(connection.observedState.goAwayReason == .shutdown)
        try await stopping.value
        let uniqueID = try #require(response.uniqueID.flatMap(APNsID.parse))
        #expect(try await store.notification(id: uniqueID) != nil)
    }

    /// The order a client reads during a shutdown: the answers to every request complete when it began, then the
    /// GOAWAY; a request completing meanwhile is answered 503 `Shutdown`. Frames the client sends before it reads
    /// the GOAWAY (a new stream's HEADERS and DATA, which the HTTP/2 layer ignores and then takes for an error, and
    /// stops reading) refuse the requests still arriving and close the connection, without waiting for the grace
    /// period.
    @Test func shutdownAnswersThenSendsItsGoAwayAndSurvivesFramesCrossingIt() async throws {
        typealias Raw = RawHTTP2Connection
        let log = LogCapture()
        // A grace period far longer than the test: a slow (parallel) run must not see it end before the frames cross.
        let gateway = try await TestGateway.start(logger: log.logger()) {
            $0.plaintext = true
            $0.shutdownGracePeriod = .seconds(120)
        }
        let store = try #require(gateway.store as? FaultInjectingStore)
        let path = "/3/device/\(try await gateway.issueToken())"
        let headers =
            Raw.requestHeaders(path: path) + Raw.literal("authorization", "bearer \(try gateway.jwt())")
            + Raw.literal("apns-topic", TestGateway.topic)
        let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        func requestHeaders(stream: UInt32) -> [UInt8] { Raw.frame(type: 0x1, flags: 0x4, stream: stream, payload: headers) }
        func requestBody(stream: UInt32) -> [UInt8] { Raw.frame(type: 0x0, flags: 0x1, stream: stream, payload: body) }
        let raw = try await Raw.connect(port: gateway.gateway.providerPort)
        try await raw.write(requestHeaders(stream: 1) + requestBody(stream: 1))
        _ = try await raw.bytes(until: { Raw.headersFrames(in: $0).count == 1 })

        store.holdWrites()
        try await raw.write(requestHeaders(stream: 3) + requestBody(stream: 3) + requestHeaders(stream: 5))
        #expect(await store.waitForHeldWrites())
        let stopping = Task { try await gateway.stop() }
        #expect(await log.wait(forLineContaining: "provider API shutting down"))
        try await raw.write(requestBody(stream: 5) + requestHeaders(stream: 7))
        _ = try await raw.bytes(until: { Raw.headersFrames(in: $0).count == 2 })
        store.releaseWrites()
        // The GOAWAY follows the answer to stream 3; stream 7 is still open, and stream 9 crosses the GOAWAY.
        _ = try await raw.bytes(until: { Raw.goAwayErrorCode(in: $0) != nil })
        try await raw.write(requestHeaders(stream: 9) + requestBody(stream: 9) + requestBody(stream: 7))

        let received = try #require(try await raw.bytesUntilClosed(timeout: .seconds(15)), "closed only after the grace period")
        try await stopping.value
        var decoder = HPACKDecoder(allocator: .init())
        let statuses = try Raw.headerBlocks(in: received).map { block in
            var buffer = ByteBuffer(bytes: block)
            return try decoder.decodeHeaders(from: &buffer).first(name: ":status")
        }
        // Stream 7 opened before the GOAWAY, which names it as the last stream: it gets its answer, refused with the
        // reason the connection closes for. Stream 9 crossed the GOAWAY: REFUSED_STREAM, never processed.
        #expect(Raw.headersFrames(in: received).map(\.stream) == [1, 5, 3, 7])
        #expect(statuses == ["200", "503", "200", "503"])
        let answersAndGoAway = Raw.frames(in: received).filter { $0.type == 0x1 || $0.type == 0x7 }.map(\.stream)
        #expect(answersAndGoAway == [1, 5, 3, 0, 7])  // the GOAWAY (stream 0) right after stream 3's answer
        #expect(Raw.resetCodes(in: received)[9] == 0x7)  // REFUSED_STREAM: never processed
        #expect(try await store.notificationCount() == 2)  // streams 5, 7 and 9 were not stored
    }

    @Test func certificateAuthenticationNamesTheTopic() async throws {
        let gateway = try await TestGateway.start()
        let single = try await gateway.connect(clientCertificate: try gateway.clientCertificate(topics: [TestGateway.topic]))
        #expect(
            try await single.send(
                try await gateway.push {
                    $0.jwt = nil
                    $0.topic = nil
                }
            ).status == 200)
        #expect(try await single.send(try await gateway.push { $0.jwt = "ignored.under.certificates" }).status == 200)
        let other = try await gateway.issueToken(topic: "com.example.other")
        #expect(
            try await single.send(
                try await gateway.push {
                    $0.jwt = nil
                    $0.token = other
                    $0.topic = "com.example.other"
                }
            ).reason == .topicDisallowed)

        // Live Activities take token-based connections only: APNs has been seen to answer a certificate's TopicDisallowed.
        let liveActivity = try await single.send(
            try await gateway.push {
                $0.jwt = nil
                $0.pushType = .liveActivity
                $0.topic = TestGateway.topic + ".push-type.liveactivity"
                $0.body = Data(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"progress":0.5}}}"#.utf8)
            })
        #expect(liveActivity.reason == .topicDisallowed)
        #expect(
            try await gateway.connect().send(
                try await gateway.push {
                    $0.pushType = .liveActivity
                    $0.topic = TestGateway.topic + ".push-type.liveactivity"
                    $0.body = Data(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"progress":0.5}}}"#.utf8)
                }
            ).status == 200)

        let several = try await gateway.connect(clientCertificate: try gateway.clientCertificate(topics: [TestGateway.topic, "com.example.other"]))
        #expect(
            try await several.send(
                try await gateway.push {
                    $0.jwt = nil
                    $0.topic = nil
                }
            ).reason == .missingTopic)
        #expect(
            try await several.send(
                try await gateway.push {
                    $0.jwt = nil
                    $0.token = other
                    $0.topic = "com.example.other"
                }
            ).status == 200)
        try await gateway.stop()
    }

    @Test func certificatesFromAnotherCAAreRefusedAtTheHandshake() async throws {
        let gateway = try await TestGateway.start()
        let stranger = try await TestGateway.start()
        let foreign = try stranger.clientCertificate(topics: [TestGateway.topic])
        await #expect(throws: (any Error).self) {
            let connection = try await gateway.connect(clientCertificate: foreign)
            _ = try await connection.send(try await gateway.push { $0.jwt = nil })
        }
        try await stranger.stop()
        try await gateway.stop()
    }
}
