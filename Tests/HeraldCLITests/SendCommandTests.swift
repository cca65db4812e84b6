import ArgumentParser
import Foundation
import HeraldClient
import HeraldGateway
import HeraldGatewayTesting
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import Testing

@testable import HeraldCLI

/// `herald send` for many devices, load, dry runs and bad input, as the built binary.
@Suite struct SendCommandTests {
    /// A gateway serving a data directory the CLI made a key in, with tokens for com.example.cli.
    struct Setup {
        var gateway: TestGateway
        var data: String
        var keyPath: String
        var common: [String]

        func write(_ text: String, to name: String) throws -> String {
            let path = data + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }

        func notificationCount() async throws -> Int {
            try await gateway.store.notificationCount()
        }
    }

    static func setUp() async throws -> Setup {
        let data = CommandRunTests.temporaryDirectory()
        try DataDirectory(path: data).prepare()
        let store = try SQLiteStore(path: DataDirectory(path: data).storePath)
        let gateway = try await TestGateway.start(store: store) { $0.directoryTimeToLive = .milliseconds(100) }
        let keyPath = data + "/cli-key.p8"
        let created = try await CommandRunTests.run([
            "keys", "create", "--data-dir", data, "--team-id", "CLITEAM001", "--key-id", "CLIKEY0001", "--out", keyPath,
        ])
        #expect(created.status == 0, "\(created.error)")
        let common = [
            "send", "--gateway", gateway.url.absoluteString, "--ca", gateway.caPath, "--p8", keyPath, "--key-id", "CLIKEY0001", "--team-id",
            "CLITEAM001",
        ]
        return Setup(gateway: gateway, data: data, keyPath: keyPath, common: common)
    }

    static func issue(_ setup: Setup, topic: String = "com.example.cli") async throws -> String {
        try await CommandRunTests.run(["tokens", "issue", "--data-dir", setup.data, "--topic", topic]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aBatchReportsEveryOutcomeByReasonAndNeverStopsAtAFailure() async throws {
        let setup = try await Self.setUp()
        let good = [try await Self.issue(setup), try await Self.issue(setup), try await Self.issue(setup)]
        let otherTopic = try await Self.issue(setup, topic: "com.example.other")
        let list = try setup.write("# devices\n\(good[0])\n\(otherTopic)\n\n\(good[1])  # second\n\(good[2])\n", to: "devices.txt")
        let run = try await CommandRunTests.run(
            setup.common + ["--topic", "com.example.cli", "--devices", list, "-"], input: #"{"aps":{"alert":"batch"}}"#)
        #expect(run.status == 1)
        #expect(run.output.contains("sent 4 notifications to 4 devices"))
        #expect(run.output.contains(try #require(Self.row("200 accepted", 3, in: run.output))))
        #expect(run.output.contains(try #require(Self.row("400 DeviceTokenNotForTopic", 1, in: run.output))))
        #expect(run.output.contains("(\(list):3): 400 DeviceTokenNotForTopic"))
        #expect(!run.output.contains(otherTopic) && !run.error.contains(otherTopic))
        #expect(run.error.contains("4/4"))
        #expect(try await setup.notificationCount() == 3)
        try await setup.gateway.stop()
    }

    @Test func countAndConcurrencySendALoad() async throws {
        let setup = try await Self.setUp()
        let tokens = [try await Self.issue(setup), try await Self.issue(setup)]
        let run = try await CommandRunTests.run(
            setup.common + [
                "--topic", "com.example.cli", "--device", tokens[0], "--device", tokens[1], "--count", "300", "--concurrency", "50", "-",
            ],
            input: #"{"aps":{"alert":"load"}}"#
        )
        #expect(run.status == 0, "\(run.output) \(run.error)")
        #expect(run.output.contains("sent 300 notifications to 2 devices"))
        #expect(Self.row("200 accepted", 300, in: run.output) != nil)
        #expect(try await setup.notificationCount() == 300)
        try await setup.gateway.stop()
    }

    @Test func aDryRunSendsNothingAndItsCurlCommandWorks() async throws {
        let setup = try await Self.setUp()
        let token = try await Self.issue(setup)
        let run = try await CommandRunTests.run(
            setup.common + ["--topic", "com.example.cli", "--device", token, "--collapse-id", "it's", "--dry-run", "-"],
            input: #"{"aps":{"alert":"dry"}}"#
        )
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("POST \(setup.gateway.url.absoluteString)/3/device/\(token)"))
        #expect(run.output.contains("apns-collapse-id: it's"))
        #expect(!run.output.contains("eyJ"))  // no provider token printed
        #expect(try await setup.notificationCount() == 0)
        let curl = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("curl ") })
        let shell = try HeraldProcess.start(["-c", String(curl) + " -s -o /dev/null -w '%{http_code}'"], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(await shell.exitStatus() == 0, "\(shell.errorOutput)")
        #expect(shell.output == "200")
        #expect(try await setup.notificationCount() == 1)
        try await setup.gateway.stop()
    }

    @Test func anAPNSFileSuppliesTheTopic() async throws {
        let setup = try await Self.setUp()
        let token = try await Self.issue(setup)
        let file = try setup.write(#"{"Simulator Target Bundle":"com.example.cli","aps":{"alert":"from a file"}}"#, to: "push.apns")
        let run = try await CommandRunTests.run(setup.common + ["--device", token, file])
        #expect(run.status == 0, "\(run.output) \(run.error)")
        #expect(run.output.contains("status: 200"))
        #expect(run.output.contains("apns-id: "))
        let without = try setup.write(#"{"aps":{"alert":"no bundle"}}"#, to: "plain.json")
        let refused = try await CommandRunTests.run(setup.common + ["--device", token, without])
        #expect(refused.status != 0)
        #expect(refused.error.contains("give --topic"))
        try await setup.gateway.stop()
    }

    @Test func badInputIsRefusedBeforeAnyRequest() async throws {
        let setup = try await Self.setUp()
        let token = try await Self.issue(setup)
        let payload = #"{"aps":{"alert":"x"}}"#
        let notAKey = try setup.write("not a key", to: "bogus.p8")
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 5000) + #""}}"#
        let badList = try setup.write("\(token)\nnot-hex\n", to: "bad-devices.txt")
        let base = [
            "send", "--gateway", setup.gateway.url.absoluteString, "--ca", setup.gateway.caPath, "--key-id", "CLIKEY0001", "--team-id", "CLITEAM001",
            "--topic", "com.example.cli",
        ]
        let cases: [([String], String, String)] = [
            (base + ["--p8", setup.data + "/missing.p8", "--device", token, "-"], payload, "cannot read the key file"),
            (base + ["--p8", notAKey, "--device", token, "-"], payload, "is not a P-256 private key in PEM (.p8) form"),
            (base + ["--p8", setup.keyPath, "--device", token, "-"], big, "the limit for alert is 4096"),
            (base + ["--p8", setup.keyPath, "--device", token, "-"], "{not json", "payload is not valid JSON"),
            (base + ["--p8", setup.keyPath, "--devices", badList, "-"], payload, "line 2 of \(badList) is not a device token in hex"),
            (base + ["--p8", setup.keyPath, "--device", "zz", "-"], payload, "--device must be a device token in hex"),
            (base + ["--p8", setup.keyPath, "--device", token, "--priority", "7", "-"], payload, "priority 7 is not one of 10, 5 or 1"),
        ]
        for (arguments, input, message) in cases {
            let run = try await CommandRunTests.run(arguments, input: input)
            #expect(run.status != 0)
            #expect(run.error.contains(message), "\(run.error)")
        }
        #expect(try await setup.notificationCount() == 0)
        try await setup.gateway.stop()
    }

    @Test func networkFailuresAreReportedPerNotification() async throws {
        let setup = try await Self.setUp()
        let tokens = [try await Self.issue(setup), try await Self.issue(setup)]
        let url = setup.gateway.url.absoluteString
        let ca = setup.data + "/ca.pem"
        try FileManager.default.copyItem(atPath: setup.gateway.caPath, toPath: ca)
        try await setup.gateway.stop()
        let arguments = [
            "send", "--gateway", url, "--ca", ca, "--p8", setup.keyPath, "--key-id", "CLIKEY0001",
            "--team-id", "CLITEAM001", "--topic", "com.example.cli", "--device", tokens[0], "--device", tokens[1], "--attempts", "1", "-",
        ]
        let batch = try await CommandRunTests.run(arguments, input: #"{"aps":{"alert":"x"}}"#)
        #expect(batch.status == 1)
        #expect(Self.row("error connectionFailed", 2, in: batch.output) != nil, "\(batch.output) \(batch.error)")
        let single = try await CommandRunTests.run(Array(arguments.dropLast(5)) + ["--attempts", "1", "-"], input: #"{"aps":{"alert":"x"}}"#)
        #expect(single.status == 1)
        #expect(single.error.contains("error: cannot connect to"), "\(single.error)")
    }

    @Test func sendTakesTheNewFlags() throws {
        let command = try #require(
            try HeraldCommand.parseAsRoot([
                "send", "--gateway", "development", "--p8", "k.p8", "--key-id", "KEY1234567", "--team-id", "TEAM123456",
                "--device", String(repeating: "ab", count: 32), "--device", String(repeating: "cd", count: 32), "--devices", "list.txt",
                "--count", "10", "--concurrency", "5", "--dry-run", "payload.apns",
            ]) as? Send)
        #expect(command.device.count == 2)
        #expect(command.devices == "list.txt")
        #expect(command.count == 10 && command.concurrency == 5 && command.dryRun)
        #expect(try command.endpoint() == .development)
        let message = { (arguments: [String]) -> String in
            do {
                _ = try HeraldCommand.parseAsRoot(arguments)
                return ""
            } catch {
                return HeraldCommand.message(for: error)
            }
        }
        let base = ["send", "--gateway", "production", "--p8", "k.p8", "--key-id", "KEY1234567", "--team-id", "TEAM123456", "-"]
        #expect(message(base).contains("name a device with --device TOKEN"))
        #expect(message(base + ["--device", String(repeating: "ab", count: 32), "--count", "0"]).contains("--count must be at least 1"))
        #expect(message(base + ["--device", String(repeating: "ab", count: 32), "--apns-id", "nope"]).contains("--apns-id must be a UUID"))
    }

    /// The summary table's row for `label`, when its count is `count`.
    static func row(_ label: String, _ count: Int, in output: String) -> String? {
        output.split(separator: "\n").first { line in
            line.hasPrefix(label) && line.split(separator: " ").last == Substring(String(count))
        }.map(String.init)
    }
}

/// `herald jwt`: generate and validate provider tokens.
@Suite struct JWTCommandTests {
    @Test func generatedTokensValidateAndBadOnesAreExplained() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let keyPath = data + "-key.p8"
        let otherKey = data + "-other.p8"
        #expect(
            try await CommandRunTests.run([
                "keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--out", keyPath,
            ]).status == 0)
        #expect(
            try await CommandRunTests.run([
                "keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY7654321", "--out", otherKey,
            ]).status == 0)
        let jwt = try await CommandRunTests.run(["jwt", "--p8", keyPath, "--key-id", "KEY1234567", "--team-id", "TEAM123456"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let parsed = try ProviderToken.parse(jwt)
        #expect(parsed.teamID == "TEAM123456")

        let valid = try await CommandRunTests.run(["jwt", "validate", jwt, "--p8", keyPath, "--team-id", "TEAM123456", "--key-id", "KEY1234567"])
        #expect(valid.status == 0, "\(valid.output)")
        #expect(valid.output.contains("✓ signature verifies"))
        #expect(valid.output.hasSuffix("valid\n"))

        let fromStdin = try await CommandRunTests.run(["jwt", "validate", "-"], input: jwt + "\n")
        #expect(fromStdin.status == 0)
        #expect(fromStdin.output.contains("signature not checked"))

        let wrongKey = try await CommandRunTests.run(["jwt", "validate", jwt, "--p8", otherKey, "--team-id", "TEAM999999"])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.output.contains("InvalidProviderToken"))
        #expect(wrongKey.output.contains("--team-id is TEAM999999"))

        let old = try await CommandRunTests.run([
            "jwt", "generate", "--p8", keyPath, "--key-id", "KEY1234567", "--team-id", "TEAM123456", "--issued-at", "1700000000",
        ]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let expired = try await CommandRunTests.run(["jwt", "validate", old, "--p8", keyPath])
        #expect(expired.status == 1)
        #expect(expired.output.contains("ExpiredProviderToken"))
        #expect(try await CommandRunTests.run(["jwt", "validate", old, "--now", "1700000600"]).status == 0)

        let garbage = try await CommandRunTests.run(["jwt", "validate", "not.a.jwt"])
        #expect(garbage.status == 1)
        #expect(garbage.output.contains("invalid"))
    }
}
