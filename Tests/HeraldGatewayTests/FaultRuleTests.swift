import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// Fault rules over real HTTP/2 connections (docs/faults.md): each action as a provider's client sees it, matching and
/// scopes, the delivery log, the event stream and `/metrics`, and production's `--allow-faults`.
@Suite struct FaultRuleTests {
    /// A rule added through the admin API, in force when this returns; its id.
    @discardableResult
    static func add(_ gateway: TestGateway, _ rule: String) async throws -> String {
        let reply = try await AdminClient(gateway: gateway).request("POST", "/v1/faults", body: rule)
        #expect(reply.status == 201, "\(reply.body)")
        return try #require(reply.body["id"]?.stringValue)
    }

    static func send(
        _ connection: APNsConnection, _ gateway: TestGateway, to token: String, payload: String = #"{"aps":{"alert":"hi"}}"#,
        collapseID: String? = nil, priority: Int? = nil, deadline: Duration = .seconds(30)
    ) async throws -> APNsResponse {
        let headers = APNsConnection.notificationHeaders(
            token: token, topic: TestGateway.topic, jwt: gateway.defaultJWT, priority: priority, collapseID: collapseID)
        return try await connection.send(headers: headers, body: Data(payload.utf8), deadline: deadline)
    }

    @Test func anAnswerRuleTakesTheNextCountThenTheGatewayAnswersAsUsual() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        let other = try await gateway.issueToken()
        let rule = try await Self.add(
            gateway, #"{"match":{"token":"\#(token)"},"count":2,"action":{"kind":"answer","status":410,"timestamp":1700000000000}}"#)
        let connection = try await gateway.connect()
        #expect(try await Self.send(connection, gateway, to: other).status == 200, "another token is not matched")
        for _ in 0..<2 {
            let refused = try await Self.send(connection, gateway, to: token)
            #expect(refused.status == 410 && refused.reason == .unregistered && refused.timestamp == 1_700_000_000_000)
        }
        #expect(try await Self.send(connection, gateway, to: token).status == 200, "used up after two")
        // A used-up rule leaves the store too.
        var listed = try await AdminClient(gateway: gateway).get("/v1/faults")
        for _ in 0..<20 where listed.body["rules"] != .array([]) {
            try await Task.sleep(for: .milliseconds(100))
            listed = try await AdminClient(gateway: gateway).get("/v1/faults")
        }
        #expect(listed.body["rules"] == .array([]) && listed.body["honoured"] == .bool(true))
        #expect(try await gateway.store.faultRules(at: Date()).contains { $0.id == rule } == false)

        // The delivery log keeps the two as faulted, never delivered; the third as accepted.
        let log = try await AdminClient(gateway: gateway).get("/v1/notifications?q=\(token)")
        guard case .array(let entries)? = log.body["notifications"] else { return #expect(Bool(false), "\(log.body)") }
        #expect(entries.count == 3)
        let faulted = entries.filter { $0["state"]?.stringValue == "discarded" }
        #expect(faulted.count == 2)
        let step = faulted.first?["timeline"].flatMap { if case .array(let steps) = $0 { steps.first } else { nil } }
        #expect(step?["event"] == .string("faulted") && step?["text"]?.stringValue?.contains("rule \(rule)") == true, "\(faulted)")
        await connection.close()
        try await gateway.stop()
    }

    @Test func matchesByTopicPriorityCollapseIDHeaderAndPayloadPointer() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        try await Self.add(
            gateway,
            #"{"match":{"tokenPrefix":"\#(token.prefix(6))","topic":"\#(TestGateway.topic)","priority":5,"collapseID":"score","#
                + #""header":{"name":"APNS-Collapse-ID","value":"score"},"payload":{"pointer":"/game/home","value":3}},"#
                + #""action":{"kind":"answer","reason":"TooManyRequests"}}"#)
        let connection = try await gateway.connect()
        let matching = #"{"aps":{"alert":"goal"},"game":{"home":3.0}}"#
        let taken = try await Self.send(connection, gateway, to: token, payload: matching, collapseID: "score", priority: 5)
        #expect(taken.status == 429 && taken.reason == .tooManyRequests)
        #expect(try await Self.send(connection, gateway, to: token, payload: matching, collapseID: "score", priority: 10).status == 200)
        #expect(try await Self.send(connection, gateway, to: token, payload: matching, collapseID: "other", priority: 5).status == 200)
        let otherScore = #"{"aps":{"alert":"goal"},"game":{"home":4}}"#
        #expect(try await Self.send(connection, gateway, to: token, payload: otherScore, collapseID: "score", priority: 5).status == 200)
        await connection.close()
        try await gateway.stop()
    }

    @Test func aRuleMatchesItsPushTypeAndLastsUntilItExpires() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        try await Self.add(gateway, #"{"match":{"pushType":"background"},"expiresIn":1.5,"action":{"kind":"answer","status":500}}"#)
        let connection = try await gateway.connect()
        let background = APNsConnection.notificationHeaders(
            token: token, topic: TestGateway.topic, jwt: gateway.defaultJWT, pushType: .background, priority: 5)
        let body = Data(#"{"aps":{"content-available":1}}"#.utf8)
        #expect(try await connection.send(headers: background, body: body).status == 500)
        #expect(try await Self.send(connection, gateway, to: token).status == 200, "an alert push is not taken")
        gateway.clock.advance(by: 2)  // the gateway's clock: past the rule's expiry
        #expect(try await connection.send(headers: background, body: body).status == 200, "expired")
        await connection.close()
        try await gateway.stop()
    }

    /// A gateway's start removes the rules of the run before, unless they are persistent.
    @Test func onlyPersistentRulesSurviveARestart() async throws {
        let store = try SQLiteStore(path: TemporaryPath.make("herald-faults", suffix: ".sqlite"))
        try await store.saveFaultRule(FaultRule(id: "ftransient", action: .answer(.internalServerError, timestamp: nil)))
        try await store.saveFaultRule(FaultRule(id: "fkept", action: .answer(.serviceUnavailable, timestamp: nil), persistent: true))
        let gateway = try await TestGateway.start(store: store)
        #expect(try await store.faultRules(at: Date()).map(\.id) == ["fkept"])
        let connection = try await gateway.connect()
        let answer = try await Self.send(connection, gateway, to: try await gateway.issueToken())
        #expect(answer.status == 503 && answer.reason == .serviceUnavailable)
        await connection.close()
        try await gateway.stop()
    }

    /// A share takes the same requests on every run with the same seed.
    @Test func aSeededShareRepeats() async throws {
        func run() async throws -> [Int] {
            let gateway = try await TestGateway.start()
            let token = try await gateway.issueToken()
            try await Self.add(gateway, #"{"share":30,"seed":42,"action":{"kind":"answer","status":503}}"#)
            let connection = try await gateway.connect()
            var statuses: [Int] = []
            for _ in 0..<40 { statuses.append(try await Self.send(connection, gateway, to: token).status) }
            await connection.close()
            try await gateway.stop()
            return statuses
        }
        let first = try await run()
        #expect(first == (try await run()))
        let taken = first.count { $0 == 503 }
        #expect(taken > 4 && taken < 24, "about 30% of 40: \(taken)")
    }

    @Test func delayDropAndReset() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        let connection = try await gateway.connect()
        let delay = try await Self.add(gateway, #"{"count":1,"action":{"kind":"delay","milliseconds":700}}"#)
        let start = ContinuousClock.now
        #expect(try await Self.send(connection, gateway, to: token).status == 200)
        #expect(ContinuousClock.now - start >= .milliseconds(700))
        try await Self.add(gateway, #"{"count":1,"action":{"kind":"drop"}}"#)
        let dropped = try await Self.send(connection, gateway, to: token)
        #expect(dropped.status == 200)
        try await Self.add(gateway, #"{"count":1,"action":{"kind":"reset"}}"#)
        await #expect(throws: (any Error).self) { try await Self.send(connection, gateway, to: token) }
        #expect(try await Self.send(connection, gateway, to: token).status == 200, "the connection carries on after a reset stream")

        let log = try await AdminClient(gateway: gateway).get("/v1/notifications?q=\(token)")
        guard case .array(let entries)? = log.body["notifications"] else { return #expect(Bool(false), "\(log.body)") }
        let states = entries.map { $0["state"]?.stringValue ?? "" }
        #expect(states == ["pending", "discarded", "discarded", "pending"], "newest first: ok, reset, drop, delay")
        let delayed = try #require(entries.last)
        let steps = delayed["timeline"].flatMap { if case .array(let steps) = $0 { steps.compactMap { $0["event"]?.stringValue } } else { nil } }
        #expect(steps?.contains("faulted") == true && steps?.first == "accepted", "a delayed one is delivered as usual, marked \(delay)")
        await connection.close()
        try await gateway.stop()
    }

    @Test func goAwayAfterMoreRequestsCloseAndStall() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        try await Self.add(gateway, #"{"count":1,"action":{"kind":"goaway","reason":"Shutdown","after":2}}"#)
        let connection = try await gateway.connect()
        for _ in 0..<3 { #expect(try await Self.send(connection, gateway, to: token).status == 200) }
        await connection.waitUntilClosed()
        #expect(connection.observedState.goAwayReason == .shutdown)

        try await Self.add(gateway, #"{"count":1,"action":{"kind":"close"}}"#)
        let closing = try await gateway.connect()
        await #expect(throws: (any Error).self) { try await Self.send(closing, gateway, to: token) }
        await closing.waitUntilClosed()
        #expect(closing.observedState.goAwayReceived == false)

        try await Self.add(gateway, #"{"count":1,"action":{"kind":"stall"}}"#)
        let stalled = try await gateway.connect()
        await #expect(throws: (any Error).self) { try await Self.send(stalled, gateway, to: token, deadline: .seconds(1)) }
        await #expect(throws: (any Error).self) { try await Self.send(stalled, gateway, to: token, deadline: .seconds(1)) }
        #expect(stalled.isActive, "a stalled connection stays open, answering nothing")
        await stalled.close()
        try await gateway.stop()
    }

    /// The event stream and `/metrics` tell an injected failure from a real one.
    @Test func eventsAndMetricsMarkFaultedRequests() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        let port = try await gateway.gateway.consolePort()
        let events = try await ConsoleHTTP(port: port).stream("/v1/events", headers: ["Authorization": "Bearer \(gateway.gateway.adminToken)"])
        var received = ""
        var iterator = events.makeAsyncIterator()
        while !received.contains(": following delivery events") { received += try await iterator.next() ?? "" }
        let rule = try await Self.add(gateway, #"{"count":1,"action":{"kind":"answer","status":429}}"#)
        let connection = try await gateway.connect()
        let answer = try await Self.send(connection, gateway, to: token)
        #expect(answer.status == 429)
        #expect(try await Self.send(connection, gateway, to: token).status == 200)
        await connection.close()
        while !received.contains("event: accepted") { received += try await iterator.next() ?? "" }
        let lines = received.components(separatedBy: "\n")
        let faulted = try #require(lines.firstIndex { $0.hasSuffix("event: faulted") }, "\(received)")
        let data = try JSONValue.parse(Data(lines[faulted + 1].dropFirst("data: ".count).utf8))
        #expect(data["rule"] == .string(rule) && data["action"] == .string("answer") && data["apnsID"]?.stringValue == answer.apnsID)
        #expect(data["detail"]?.stringValue == "answered 429 TooManyRequests (fault rule \(rule))" && data["state"] == .string("discarded"))
        #expect(lines.filter { $0.hasSuffix("event: accepted") }.count == 1, "the faulted request is not also accepted")

        let metrics = try await ConsoleHTTP(port: port).send("GET", "/metrics")
        #expect(metrics.body.contains(#"herald_faults_applied_total{action="answer"} 1"#), "\(metrics.body)")
        try await gateway.stop()
    }

    @Test func badRulesAreRefusedWithWhatToSend() async throws {
        let gateway = try await TestGateway.start()
        let admin = AdminClient(gateway: gateway)
        let cases: [(String, String)] = [
            (#"{"action":{"kind":"answer","status":410,"reason":"TooManyRequests"}}"#, "APNs answers TooManyRequests with 429, not 410"),
            (#"{"action":{"kind":"answer","status":418}}"#, "is an APNs error status"),
            (#"{"action":{"kind":"explode"}}"#, "is not one of answer, delay"),
            (#"{"count":1,"share":5,"action":{"kind":"drop"}}"#, "not both"),
            (#"{"match":{"pushType":"pigeon"},"action":{"kind":"drop"}}"#, "is not a push type"),
            (#"{"match":{"color":"red"},"action":{"kind":"drop"}}"#, "has no field \"color\""),
            (#"{"action":{"kind":"answer","status":429,"timestamp":5}}"#, "goes with a 410"),
            (#"{"match":{"token":"xyz"},"action":{"kind":"drop"}}"#, "hex digits"),
        ]
        for (body, message) in cases {
            let reply = try await admin.request("POST", "/v1/faults", body: body)
            #expect(reply.status == 400 && reply.body["reason"] == .string("BadRule"), "\(body)")
            #expect(reply.body["message"]?.stringValue?.contains(message) == true, "\(body): \(reply.body)")
        }
        #expect(try await admin.request("DELETE", "/v1/faults/fnothere").status == 404)
        try await gateway.stop()
    }

    @Test func aProductionGatewayHonoursRulesOnlyWithAllowFaults() async throws {
        for allowed in [false, true] {
            let gateway = try await TestGateway.start { configuration in
                configuration.environment = .production
                configuration.allowFaults = allowed
            }
            let key = try await gateway.addKey(teamID: TestGateway.teamID, keyID: "PRODKEY001", environment: .production)
            let token = try await gateway.issueToken(environment: .production)
            let reply = try await AdminClient(gateway: gateway).request("POST", "/v1/faults", body: #"{"action":{"kind":"answer","status":500}}"#)
            #expect(reply.status == 201 && reply.body["honoured"] == .bool(allowed))
            let connection = try await gateway.connect()
            let headers = APNsConnection.notificationHeaders(
                token: token, topic: TestGateway.topic, jwt: try gateway.jwt(keyID: "PRODKEY001", key: key))
            let answer = try await connection.send(headers: headers, body: Data(#"{"aps":{"alert":"hi"}}"#.utf8))
            #expect(answer.status == (allowed ? 500 : 200), "allowed: \(allowed)")
            await connection.close()
            try await gateway.stop()
        }
    }
}
