import Foundation
import HeraldClient
import HeraldWire
import NIOHTTP2
import Testing

/// The client against a scripted HTTP/2 server that does what APNs and broken servers do.
@Suite struct MisbehavingServerTests {
    @Test func oneStreamUntilTheFirstAnswerThenTheServersLimit() async throws {
        // The server claims 100 streams from the start; the client still waits for one accepted request.
        let server = try await ScriptedHTTP2Server.start(initialMaximumConcurrentStreams: 100) { _ in [.respond(status: 200)] }
        let client = try ClientFixtures.client(server.url) { $0.maximumConnections = 1 }
        let results = await withTaskGroup(of: Result<APNsSendResult, APNsClientError>.self) { group in
            for _ in 0..<40 { group.addTask { await ClientFixtures.outcome(client) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.success != nil })
        let requests = server.requests
        #expect(requests.first?.openStreams == 1)
        #expect(requests.count == 40)
        #expect(server.connections == 1)
        await client.shutdown()
        await server.stop()
    }

    @Test func honoursAServerThatKeepsOneStream() async throws {
        let server = try await ScriptedHTTP2Server.start(initialMaximumConcurrentStreams: 1) { _ in [.respond(status: 200)] }
        let client = try ClientFixtures.client(server.url) { $0.maximumConnections = 1 }
        let results = await withTaskGroup(of: Result<APNsSendResult, APNsClientError>.self) { group in
            for _ in 0..<30 { group.addTask { await ClientFixtures.outcome(client) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.success != nil })
        #expect(server.maximumOpenStreams == 1)
        await client.shutdown()
        await server.stop()
    }

    @Test func followsSettingsThatLowerTheLimitMidConnection() async throws {
        let server = try await ScriptedHTTP2Server.start(initialMaximumConcurrentStreams: 1, afterFirstSuccess: 100) { request in
            request.index == 1 ? [.settings(maximumConcurrentStreams: 2, then: [.respond(status: 200)])] : [.respond(status: 200)]
        }
        let client = try ClientFixtures.client(server.url) { $0.maximumConnections = 1 }
        #expect(await ClientFixtures.outcome(client).success != nil)
        #expect(await ClientFixtures.outcome(client).success != nil)  // lowers the limit to 2
        let results = await withTaskGroup(of: Result<APNsSendResult, APNsClientError>.self) { group in
            for _ in 0..<30 { group.addTask { await ClientFixtures.outcome(client) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.success != nil })
        let later = server.requests.dropFirst(2)
        #expect(later.count == 30)
        #expect(later.allSatisfy { $0.openStreams <= 2 })
        await client.shutdown()
        await server.stop()
    }

    @Test func requestsPastAGoAwayAreRetriedOnANewConnection() async throws {
        // Connection 1 answers its first request, then sends GOAWAY (Shutdown) naming it as the last one
        // processed: the requests already sent on it past that stream were never processed.
        let server = try await ScriptedHTTP2Server.start(initialMaximumConcurrentStreams: 1, afterFirstSuccess: 100) { request in
            guard request.connection == 1 else { return [.respond(status: 200)] }
            switch request.index {
            case 0: return [.respond(status: 200)]
            case 1: return [.goAway(reason: "Shutdown")]
            default: return [.stall]
            }
        }
        let client = try ClientFixtures.client(server.url) { $0.maximumConnections = 1 }
        #expect(await ClientFixtures.outcome(client).success?.attempts == 1)
        let results = await withTaskGroup(of: Result<APNsSendResult, APNsClientError>.self) { group in
            for _ in 0..<20 { group.addTask { await ClientFixtures.outcome(client) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(
            results.allSatisfy { $0.success != nil },
            "\(results.compactMap(\.failure)) \(server.requests.map { "\($0.index)/c\($0.connection)/s\($0.streamID)/o\($0.openStreams)" })")
        #expect(results.contains { ($0.success?.attempts ?? 0) > 1 })
        #expect(server.connections == 2)
        await client.shutdown()
        await server.stop()
    }

    @Test func aRequestAnsweredBeforeGoAwayCompletesAndTheNextUsesANewConnection() async throws {
        let server = try await ScriptedHTTP2Server.start { request in
            request.index == 0 ? [.goAwayAfterAnswering(status: 200, reason: "IdleTimeout")] : [.respond(status: 200)]
        }
        let client = try ClientFixtures.client(server.url)
        #expect(await ClientFixtures.outcome(client).success?.attempts == 1)
        #expect(await ClientFixtures.outcome(client).success?.attempts == 1)
        #expect(server.connections == 2)
        await client.shutdown()
        await server.stop()
    }

    @Test(arguments: [
        (429, "TooManyRequests"), (500, "InternalServerError"), (503, "ServiceUnavailable"), (503, "Shutdown"), (400, "IdleTimeout"),
    ])
    func retriesWhatCanSucceedLater(status: Int, reason: String) async throws {
        let server = try await ScriptedHTTP2Server.start { request in
            request.index < 2 ? [.respond(status: status, reason: reason)] : [.respond(status: 200)]
        }
        let client = try ClientFixtures.client(server.url) { $0.retryPolicy.maximumAttempts = 5 }
        let result = await ClientFixtures.outcome(client)
        #expect(result.success?.attempts == 3)
        #expect(server.requests.count == 3)
        // Retries keep the notification's apns-id.
        #expect(Set(server.requests.map { $0.headers["apns-id"] ?? "" }).count == 1)
        await client.shutdown()
        await server.stop()
    }

    @Test(arguments: [
        (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"), (403, "Forbidden"), (410, "Unregistered"),
        (410, "ExpiredToken"), (413, "PayloadTooLarge"), (429, "TooManyProviderTokenUpdates"), (400, "SomeReasonAppleAddsLater"),
    ])
    func neverRetriesWhatCannotSucceed(status: Int, reason: String) async throws {
        let server = try await ScriptedHTTP2Server.start { _ in [.respond(status: status, reason: reason)] }
        let client = try ClientFixtures.client(server.url) { $0.retryPolicy.maximumAttempts = 5 }
        let error = try #require(await ClientFixtures.outcome(client).failure)
        #expect(error.code == .rejected)
        #expect(error.status == status)
        #expect(error.reason == APNsReason(rawValue: reason))
        #expect(error.attempts == 1)
        #expect(!error.isRetryable)
        #expect(server.requests.count == 1)
        await client.shutdown()
        await server.stop()
    }

    @Test func aBurstOf429sGivesUpAfterTheLastAttemptWithTheReason() async throws {
        let server = try await ScriptedHTTP2Server.start { _ in [.respond(status: 429, reason: "TooManyRequests")] }
        let client = try ClientFixtures.client(server.url) { $0.retryPolicy.maximumAttempts = 4 }
        let results = await withTaskGroup(of: Result<APNsSendResult, APNsClientError>.self) { group in
            for _ in 0..<10 { group.addTask { await ClientFixtures.outcome(client) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.failure?.reason == .tooManyRequests && $0.failure?.attempts == 4 })
        #expect(server.requests.count == 40)
        await client.shutdown()
        await server.stop()
    }

    @Test func aStalledRequestTimesOutAndTheConnectionKeepsWorking() async throws {
        // Picked by its body, not its position: on a loaded machine the stalled send can time out before it is
        // sent, and the next request must not inherit its stall.
        let stall = APNsNotification(topic: "com.example.app", payload: Data(#"{"aps":{"alert":"stall"}}"#.utf8))
        let server = try await ScriptedHTTP2Server.start { request in
            request.body == stall.payload ? [.stall] : [.respond(status: 200)]
        }
        let client = try ClientFixtures.client(server.url) { $0.maximumConnections = 1 }
        #expect(await ClientFixtures.outcome(client).success != nil)
        let stalled = try #require(await ClientFixtures.outcome(client, stall, timeout: .milliseconds(300)).failure)
        #expect(stalled.code == .timeout)
        #expect(stalled.apnsID != nil)
        #expect(!stalled.isRetryable)
        #expect(await ClientFixtures.outcome(client).success != nil)
        #expect(server.connections == 1)
        // The timed-out stream was reset, so it no longer counts against the server's limit.
        #expect(server.requests.last?.openStreams == 1)
        await client.shutdown()
        await server.stop()
    }

    @Test func aRefusedStreamIsRetriedAndAResetOneIsReported() async throws {
        let server = try await ScriptedHTTP2Server.start { request in
            switch request.index {
            case 0: [.reset(.refusedStream)]
            case 1: [.respond(status: 200)]
            default: [.reset(.internalError)]
            }
        }
        let client = try ClientFixtures.client(server.url)
        #expect(await ClientFixtures.outcome(client).success?.attempts == 2)
        let reset = try #require(await ClientFixtures.outcome(client).failure)
        #expect(reset.code == .connectionClosed)
        #expect(reset.attempts == 1)
        await client.shutdown()
        await server.stop()
    }

    @Test func aConnectionLostMidRequestIsReportedNotRetried() async throws {
        let server = try await ScriptedHTTP2Server.start { request in
            request.index == 1 ? [.close] : [.respond(status: 200)]
        }
        let client = try ClientFixtures.client(server.url) { $0.retryPolicy.maximumAttempts = 5 }
        #expect(await ClientFixtures.outcome(client).success != nil)
        let lost = try #require(await ClientFixtures.outcome(client).failure)
        #expect(lost.code == .connectionClosed)
        #expect(lost.attempts == 1)  // it may have been accepted: sending it again could duplicate it
        #expect(await ClientFixtures.outcome(client).success != nil)
        #expect(server.connections == 2)
        await client.shutdown()
        await server.stop()
    }

    @Test func noServerIsAConnectionFailureAfterTheRetries() async throws {
        // Port 1 (tcpmux) on loopback: nothing listens there, and no test takes it (they bind port 0, an ephemeral
        // port), as one running in parallel could take the port of a server just stopped.
        let url = URL(string: "http://127.0.0.1:1")!
        let client = try ClientFixtures.client(url) { $0.retryPolicy.maximumAttempts = 3 }
        let error = try #require(await ClientFixtures.outcome(client).failure)
        #expect(error.code == .connectionFailed)
        #expect(error.attempts == 3)
        #expect(error.message.contains("127.0.0.1"))
        await client.shutdown()
    }

    @Test func shutdownLetsInFlightRequestsFinishAndRefusesNewOnes() async throws {
        let server = try await ScriptedHTTP2Server.start { request in
            request.index == 1 ? [.delay(.milliseconds(200), then: [.respond(status: 200)])] : [.respond(status: 200)]
        }
        let client = try ClientFixtures.client(server.url)
        #expect(await ClientFixtures.outcome(client).success != nil)
        let slow = Task { await ClientFixtures.outcome(client) }
        while server.requests.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        await client.shutdown()
        #expect(await slow.value.success != nil)
        let refused = try #require(await ClientFixtures.outcome(client).failure)
        #expect(refused.code == .shutdown)
        await server.stop()
    }

    @Test func requestsCarryAnIntegerIATTokenAndTheHeadersAsked() async throws {
        let server = try await ScriptedHTTP2Server.start { _ in [.respond(status: 200)] }
        let client = try ClientFixtures.client(server.url)
        var notification = ClientFixtures.notification
        notification.priority = .powerConsiderate
        notification.expiration = .immediately
        notification.collapseID = "score"
        let result = try #require(await ClientFixtures.outcome(client, notification).success)
        let headers = try #require(server.requests.first?.headers)
        #expect(headers[":path"] == "/3/device/" + ClientFixtures.token.hex)
        #expect(headers["apns-topic"] == "com.example.app")
        #expect(headers["apns-push-type"] == "alert")
        #expect(headers["apns-priority"] == "5")
        #expect(headers["apns-expiration"] == "0")
        #expect(headers["apns-collapse-id"] == "score")
        #expect(headers["apns-id"] == APNsID.format(result.apnsID))
        #expect(result.uniqueID != nil)
        let jwt = try #require(headers["authorization"]?.split(separator: " ").last)
        let claims = try JSONValue.parse(Base64URL.decode(jwt.split(separator: ".")[1])!)
        #expect(claims["iat"].map { if case .integer = $0 { true } else { false } } == true)
        #expect(try ProviderToken.parse(jwt).teamID == ClientFixtures.teamID)
        await client.shutdown()
        await server.stop()
    }
}
