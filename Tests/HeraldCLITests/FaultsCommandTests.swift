import Foundation
import HeraldClient
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// `herald faults add|list|remove|clear` on a gateway's store, and a running gateway taking a rule added from the
/// command line within a second (docs/faults.md).
@Suite struct FaultsCommandTests {
    @Test func addListRemoveAndClear() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let added = try await CommandRunTests.run(
            [
                "faults", "add", "--data-dir", data, "--token", "AB12", "--payload-has", "/aps/badge=3", "--count", "2", "--status", "410",
                "--timestamp", "1700000000000", "--expires", "120",
            ])
        #expect(added.status == 0, "\(added.error)")
        let id = added.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.hasPrefix("f") && id.count == 9)
        let shared = try await CommandRunTests.run(
            [
                "faults", "add", "--data-dir", data, "--topic", "com.example.app", "--share", "25", "--seed", "7", "--goaway", "Shutdown",
                "--goaway-after", "3", "--persistent", "--json",
            ])
        let rule = try JSONValue.parse(Data(shared.output.utf8))
        #expect(rule["share"] == .number(25) && rule["seed"] == .integer(7) && rule["persistent"] == .bool(true))
        #expect(rule["action"] == .object(["kind": .string("goaway"), "reason": .string("Shutdown"), "after": .integer(3)]))

        let listed = try await CommandRunTests.run(["faults", "list", "--data-dir", data])
        let lines = listed.output.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("\(id)  answered 410 Unregistered  payload="), "\(listed.output)")
        #expect(
            lines[0].contains("token=ab12") && lines[0].contains("next 2")
                && (lines[0].contains("expires in 120 s") || lines[0].contains("expires in 119 s") || lines[0].contains("expires in 118 s")))
        #expect(lines[1].contains("GOAWAY Shutdown after 3 more requests") && lines[1].contains("25.0% (seed 7)") && lines[1].hasSuffix("persistent"))
        let json = try await CommandRunTests.run(["faults", "list", "--data-dir", data, "--json"])
        #expect(json.output.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }.count == 2)

        let removed = try await CommandRunTests.run(["faults", "remove", id, "--data-dir", data, "--json"])
        #expect(removed.status == 0 && removed.output == #"{"removed":"\#(id)"}"# + "\n", "\(removed.output)")
        let again = try await CommandRunTests.run(["faults", "remove", id, "--data-dir", data])
        #expect(again.status == 64 && again.error.contains("no fault rule \(id)"))
        let cleared = try await CommandRunTests.run(["faults", "clear", "--data-dir", data, "--json"])
        #expect(cleared.output == #"{"removed":1}"# + "\n")
    }

    @Test(arguments: [
        (["--status", "410", "--reason", "TooManyRequests"], "APNs answers TooManyRequests with 429, not 410"),
        (["--reset", "--close"], "a rule does one thing"),
        ([], "say what the rule does"),
        (["--drop", "--count", "1", "--share", "5"], "not both"),
        (["--drop", "--header", "novalue"], "--header is NAME=VALUE"),
        (["--drop", "--push-type", "pigeon"], "pigeon is not a push type"),
        (["--timestamp", "5", "--drop"], "--timestamp goes with --status 410"),
        (["--goaway-after", "2", "--drop"], "--goaway-after goes with --goaway REASON"),
    ])
    func badRulesSayWhatToFix(options: [String], message: String) async throws {
        let data = CommandRunTests.temporaryDirectory()
        let result = try await CommandRunTests.run(["faults", "add", "--data-dir", data] + options)
        #expect(result.status == 64 && result.error.contains(message), "\(result.error)")
    }

    @Test func aRunningGatewayTakesARuleAddedFromTheCommandLineWithinASecond() async throws {
        let path = TemporaryPath.make("herald-faults", suffix: ".sqlite")
        let gateway = try await TestGateway.start(store: try SQLiteStore(path: path))
        let token = try await gateway.issueToken()
        let added = try await CommandRunTests.run(["faults", "add", "--store", path, "--token", token, "--count", "1", "--status", "503"])
        #expect(added.status == 0, "\(added.error)")
        let start = ContinuousClock.now
        var answer: APNsResponse?
        while ContinuousClock.now - start < .seconds(3) {
            let connection = try await gateway.connect()
            let headers = APNsConnection.notificationHeaders(token: token, topic: TestGateway.topic, jwt: gateway.defaultJWT)
            let response = try await connection.send(headers: headers, body: Data(#"{"aps":{"alert":"hi"}}"#.utf8))
            await connection.close()
            if response.status != 200 {
                answer = response
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(answer?.status == 503 && answer?.reason == .serviceUnavailable)
        #expect(ContinuousClock.now - start < .milliseconds(1500), "taken within a second of being added")
        try await gateway.stop()
    }
}

/// Token lifecycles as Apple runs them, from the command line against a running gateway: a token retired at a chosen
/// time, and an app reinstalled on a virtual device (the old token 410 with that time, the new one accepted).
@Suite struct TokenLifecycleCommandTests {
    static func send(_ gateway: TestGateway, to token: String) async throws -> APNsResponse {
        let connection = try await gateway.connect()
        let headers = APNsConnection.notificationHeaders(token: token, topic: TestGateway.topic, jwt: gateway.defaultJWT)
        let response = try await connection.send(headers: headers, body: Data(#"{"aps":{"alert":"hi"}}"#.utf8))
        await connection.close()
        return response
    }

    /// Sends until the answer is not 200 (the gateway hears of a retirement within a second); that answer.
    static func sendUntilRefused(_ gateway: TestGateway, to token: String) async throws -> APNsResponse {
        var response = try await send(gateway, to: token)
        for _ in 0..<30 where response.status == 200 {
            try await Task.sleep(for: .milliseconds(100))
            response = try await send(gateway, to: token)
        }
        return response
    }

    @Test func retireAtATimeAndReinstall() async throws {
        let path = TemporaryPath.make("herald-tokens", suffix: ".sqlite")
        let gateway = try await TestGateway.start(store: try SQLiteStore(path: path))
        let issued = try await CommandRunTests.run(["tokens", "issue", "--store", path, "--topic", TestGateway.topic, "--count", "2"])
        let tokens = issued.output.split(separator: "\n").map(String.init)
        #expect(tokens.count == 2)
        #expect(try await Self.send(gateway, to: tokens[0]).status == 200)

        let retired = try await CommandRunTests.run(["tokens", "retire", "--store", path, "--device", tokens[0], "--timestamp", "1700000000000"])
        #expect(retired.status == 0, "\(retired.error)")
        let gone = try await Self.sendUntilRefused(gateway, to: tokens[0])
        #expect(gone.status == 410 && gone.reason == .unregistered && gone.timestamp == 1_700_000_000_000)

        let reinstalled = try await CommandRunTests.run(
            ["tokens", "reinstall", "--store", path, "--device", tokens[1], "--timestamp", "1710000000000"])
        let fresh = reinstalled.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(reinstalled.status == 0 && fresh.count == 64 && fresh != tokens[1], "\(reinstalled.error)")
        let old = try await Self.sendUntilRefused(gateway, to: tokens[1])
        #expect(old.status == 410 && old.timestamp == 1_710_000_000_000)
        #expect(try await Self.send(gateway, to: fresh).status == 200)

        let twice = try await CommandRunTests.run(["tokens", "reinstall", "--store", path, "--device", tokens[1]])
        #expect(twice.status == 64 && twice.error.contains("already retired"))
        let future = try await CommandRunTests.run(["tokens", "retire", "--store", path, "--device", fresh, "--timestamp", "99999999999999"])
        #expect(future.status == 64 && future.error.contains("not in the future"))
        try await gateway.stop()
    }
}
