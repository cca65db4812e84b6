import Foundation
import HeraldDevice
import HeraldGateway
import HeraldGatewayTesting
import HeraldSpawn
import HeraldStore
import HeraldTesting
import HeraldWire
import Testing

/// The console's send form: it sends through the provider API with the console's own key and shows the gateway's
/// answer; the same request comes as a curl line that works; payloads are checked by the gateway's rules.
@Suite struct ConsoleSenderTests {
    private func post(_ gateway: TestGateway, _ path: String, _ body: JSONValue) async throws -> AdminClient.Reply {
        try await AdminClient(gateway: gateway).request("POST", path, body: String(decoding: body.encoded(), as: UTF8.self))
    }

    private func form(token: String, topic: String = TestGateway.topic, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        .object(
            [
                "deviceToken": .string(token), "topic": .string(topic), "pushType": .string("alert"),
                "payload": .string(#"{"aps":{"alert":"Hello"}}"#),
            ].merging(extra) { _, new in new })
    }

    @Test func aSendIsAcceptedAndStoredLikeAnyProvidersAndTheConsoleKeyIsRegistered() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        let reply = try await post(gateway, "/v1/send", form(token: token, ["collapseID": .string("score")]))
        #expect(reply.status == 200 && reply.body["status"] == .integer(200), "\(reply.body)")
        let uniqueID = try #require(reply.body["uniqueID"]?.stringValue.flatMap(APNsID.parse))
        let stored = try #require(try await gateway.store.notification(id: uniqueID))
        #expect(stored.collapseID == "score" && stored.deviceToken.hex == token && stored.payload == Data(#"{"aps":{"alert":"Hello"}}"#.utf8))

        let key = try #require(try await gateway.store.key(teamID: "HERALDCONS", keyID: "CONSOLEKEY"))
        #expect(key.topics.isEmpty && key.environment == .development && key.revokedAt == nil)
        let p8 = gateway.directory.url.appendingPathComponent("console-key.p8").path
        let mode = try FileManager.default.attributesOfItem(atPath: p8)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try await gateway.stop()
    }

    @Test func refusalsShowTheReasonAndWhoRefused() async throws {
        let gateway = try await TestGateway.start()
        let unknown = try await post(gateway, "/v1/send", form(token: String(repeating: "ab", count: 32)))
        #expect(unknown.body["status"] == .integer(400) && unknown.body["reason"]?.stringValue == "BadDeviceToken", "\(unknown.body)")
        #expect(unknown.body["checkedBy"]?.stringValue == "gateway" && unknown.body["apnsID"] != nil)

        let notHex = try await post(gateway, "/v1/send", form(token: "not-a-token"))
        #expect(notHex.body["reason"]?.stringValue == "BadDeviceToken" && notHex.body["checkedBy"]?.stringValue == "client")

        let token = try await gateway.issueToken()
        let badID = try await post(gateway, "/v1/send", form(token: token, ["apnsID": .string("nope")]))
        #expect(badID.body["reason"]?.stringValue == "BadMessageId")
        let wrongTopic = try await post(gateway, "/v1/send", form(token: token, topic: "com.example.other"))
        #expect(wrongTopic.body["status"] == .integer(400) && wrongTopic.body["reason"]?.stringValue == "DeviceTokenNotForTopic")

        // Retired through the console, which the provider API sees at once (a retirement written beside the gateway is
        // seen once announced: RetirementTests).
        #expect(try await AdminClient(gateway: gateway).request("POST", "/v1/tokens/\(token)/unregister", body: "{}").status == 200)
        let gone = try await post(gateway, "/v1/send", form(token: token))
        #expect(gone.body["status"] == .integer(410) && gone.body["reason"]?.stringValue == "Unregistered" && gone.body["timestamp"] != nil)

        for path in ["/v1/send", "/v1/send/commands"] {
            let missing = try await post(gateway, path, .object(["topic": .string("x")]))
            #expect(missing.status == 400 && missing.body["reason"]?.stringValue == "BadRequest", "\(path)")
        }
        let noPayload = try await post(gateway, "/v1/check", .object(["pushType": .string("alert")]))
        #expect(noPayload.status == 400 && noPayload.body["reason"]?.stringValue == "BadRequest")
        try await gateway.stop()
    }

    /// The curl line, run by a shell, gets 200 from the provider API.
    @Test func theCurlLineWorks() async throws {
        let gateway = try await TestGateway.start()
        let token = try await gateway.issueToken()
        let reply = try await post(gateway, "/v1/send/commands", form(token: token, ["priority": .integer(5)]))
        let curl = try #require(reply.body["curl"]?.stringValue)
        #expect(curl.contains("-H 'apns-priority: 5'") && curl.contains("--cacert '\(gateway.caPath)'"))
        #expect(reply.body["heraldSend"]?.stringValue?.contains("--key-id CONSOLEKEY --team-id HERALDCONS") == true)
        let output = try await Shell.run(curl)
        #expect(output.hasPrefix("HTTP/2 200"), "\(output)")
        try await gateway.stop()
    }

    @Test func payloadsAreCheckedByTheGatewaysRules() async throws {
        let gateway = try await TestGateway.start()
        let broken = try await post(gateway, "/v1/check", .object(["payload": .string("{\n  \"aps\": {\n    \"alert\": \"Hi\",\n  }\n}")]))
        #expect(broken.body["reason"]?.stringValue == "BadPayload")
        #expect(broken.body["line"] == .integer(4) && broken.body["column"] == .integer(3), "\(broken.body)")

        let background = try await post(
            gateway, "/v1/check", .object(["payload": .string(#"{"aps":{"alert":"Hi"}}"#), "pushType": .string("background")]))
        #expect(background.body["reason"]?.stringValue == "InvalidPushType")

        let large = try await post(gateway, "/v1/check", .object(["payload": .string(#"{"a":""# + String(repeating: "x", count: 4100) + #""}"#)]))
        #expect(large.body["reason"]?.stringValue == "PayloadTooLarge" && large.body["limit"] == .integer(4096))
        let voip = try await post(
            gateway, "/v1/check",
            .object(["payload": .string(#"{"a":""# + String(repeating: "x", count: 4100) + #""}"#), "pushType": .string("voip")]))
        #expect(voip.body["status"] == .integer(200) && voip.body["limit"] == .integer(5120))

        let typo = try await post(gateway, "/v1/check", .object(["payload": .string(#"{"aps":{"alert":"Hi","bagde":1}}"#)]))
        #expect(typo.body["status"] == .integer(200))
        guard case .array(let warnings)? = typo.body["warnings"] else {
            Issue.record("no warnings: \(typo.body)")
            return
        }
        #expect(warnings.first?.stringValue?.contains("\"bagde\" is not an aps key") == true)
        try await gateway.stop()
    }
}

/// Runs a command line with /bin/sh and returns what it printed.
enum Shell {
    static func run(_ command: String) async throws -> String {
        let output = TemporaryPath.make("shell-output")
        let process = try ChildProcess.launch("/bin/sh", arguments: ["-c", command + " > '\(output)' 2>&1"])
        let termination = await process.terminated()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return termination == .exited(0) ? text : "\(termination): \(text)"
    }
}
