import Foundation
import HeraldGateway
import HeraldStore
import NIOCore
import HeraldTesting
import HeraldWire
import Testing
import UserNotifications

/// The built `herald` binary, run as a user would.
@Suite struct CommandRunTests {
    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    static func run(_ arguments: [String], input: String? = nil) async throws -> Run {
        let process = try HeraldProcess.start(arguments, input: input)
        let status = await process.exitStatus()
        return Run(status: status, output: process.output, error: process.errorOutput)
    }

    static func temporaryDirectory() -> String {
        TemporaryPath.make("herald-cli")
    }

    @Test func keysCreateWritesAPrivateKeyOnlyTheOwnerReads() async throws {
        let data = Self.temporaryDirectory()
        let keyPath = data + "-key.p8"
        let created = try await Self.run(["keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--topic", "com.example.app", "--out", keyPath])
        #expect(created.status == 0, "\(created.error)")
        #expect(created.output.contains("created key KEY1234567 for com.example.app"))
        let keyMode = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        let directoryMode = try FileManager.default.attributesOfItem(atPath: data)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)

        let again = try await Self.run(["keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--out", keyPath])
        #expect(again.status != 0)
        #expect(again.error.contains("already exists"))

        let listed = try await Self.run(["keys", "list", "--data-dir", data])
        #expect(listed.output.contains("TEAM123456  KEY1234567  development  com.example.app"))
    }

    @Test func revokingAMissingKeySaysHowToFindKeys() async throws {
        let data = Self.temporaryDirectory()
        let result = try await Self.run(["keys", "revoke", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567"])
        #expect(result.status != 0)
        #expect(result.error.contains("no key KEY1234567 for team TEAM123456 in"))
        #expect(result.error.contains("herald keys list"))
    }

    @Test func importRejectsAFileThatIsNotAKey() async throws {
        let data = Self.temporaryDirectory()
        let bogus = data + "-bogus.p8"
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: bogus))
        let result = try await Self.run(["keys", "import", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--p8", bogus])
        #expect(result.status != 0)
        #expect(result.error.contains("is not a P-256 private key in PEM (.p8) form"))
        let missing = try await Self.run(["keys", "import", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--p8", data + "-none.p8"])
        #expect(missing.error.contains("no such file"))
    }

    @Test func tokensIssuePrintsATokenTheStoreKnows() async throws {
        let data = Self.temporaryDirectory()
        let result = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.app"])
        #expect(result.status == 0)
        let token = try #require(DeviceToken(hex: result.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let store = try SQLiteStore(path: DataDirectory(path: data).storePath)
        #expect(try await store.device(token)?.topic == "com.example.app")
    }

    /// `keys create` and `tokens issue` against a data directory a gateway is serving from, then `send`.
    @Test func sendPushesThroughARunningGatewayAndReportsReasons() async throws {
        let data = Self.temporaryDirectory()
        let store = try SQLiteStore(path: { try? DataDirectory(path: data).prepare(); return DataDirectory(path: data).storePath }())
        let gateway = try await TestGateway.start(store: store) { $0.directoryTimeToLive = .milliseconds(100) }
        let keyPath = data + "/cli-key.p8"
        #expect(try await Self.run(["keys", "create", "--data-dir", data, "--team-id", "CLITEAM001", "--key-id", "CLIKEY0001", "--out", keyPath]).status == 0)
        let token = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.cli"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let common = ["send", "--gateway", gateway.url.absoluteString, "--ca", gateway.caPath, "--p8", keyPath,
                      "--key-id", "CLIKEY0001", "--team-id", "CLITEAM001", "--device", token]

        let sent = try await Self.run(common + ["--topic", "com.example.cli", "--collapse-id", "c1", "-"], input: #"{"aps":{"alert":"hi"}}"#)
        #expect(sent.status == 0, "\(sent.error)")
        #expect(sent.output.contains("status: 200"))
        let uniqueID = try #require(sent.output.split(separator: "\n").first { $0.hasPrefix("apns-unique-id: ") }.flatMap { APNsID.parse($0.dropFirst(16)) })
        #expect(try await store.notification(id: uniqueID)?.collapseID == "c1")

        let refused = try await Self.run(common + ["--topic", "com.example.other", "-"], input: #"{"aps":{"alert":"hi"}}"#)
        #expect(refused.status == 1)
        #expect(refused.output.contains("status: 400"))
        #expect(refused.output.contains("reason: DeviceTokenNotForTopic"))

        let simulatorFile = data + "/push.apns"
        try Data(#"{"Simulator Target Bundle":"com.example.cli","aps":{"alert":"from a file"}}"#.utf8).write(to: URL(fileURLWithPath: simulatorFile))
        #expect(try await Self.run(common + ["--topic", "com.example.cli", simulatorFile]).status == 0)
        try await gateway.stop()
    }
}

/// `herald serve` as a process: it prints its quick start, serves, and stops cleanly on SIGTERM.
@Suite struct ServeProcessTests {
    @Test func serveAnswersAndStopsGracefullyOnSIGTERM() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let serve = try HeraldProcess.start(["serve", "--data-dir", data, "--provider-port", "0", "--device-port", "0", "--console-port", "0", "--plaintext"])
        defer { serve.terminate() }
        #expect(await serve.waitForOutput(containing: "Or with curl"), "\(serve.errorOutput)")
        let text = serve.output
        // The quick start's send line works as printed.
        let sendLine = try #require(text.split(separator: "\n").first { $0.contains(" send --gateway ") })
        let arguments = sendLine.split(separator: "|", maxSplits: 1)[1].split(separator: " ").dropFirst().map(String.init)
        let sent = try await CommandRunTests.run(arguments, input: #"{"aps":{"alert":"from the quick start"}}"#)
        #expect(sent.output.contains("status: 200"), "\(sent.output) \(sent.error)")
        #expect(text.contains("console http://localhost:") && !text.contains("console http://localhost:0\n"))

        serve.terminate()  // SIGTERM
        #expect(await serve.exitStatus() == 0)
        let store = try SQLiteStore(path: DataDirectory(path: data).storePath)
        #expect(try await store.notificationCount() == 1)
    }

    /// Each device link is an open file: started under a soft limit of 512, the gateway raises it to the hard one.
    @Test func serveRaisesTheOpenFileLimitToTheHardLimit() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let serve = try HeraldProcess.start(
            ["--nofile=512:4096", HeraldProcess.binary.path, "serve", "--data-dir", data, "--provider-port", "0",
             "--device-port", "0", "--console-port", "0", "--plaintext"],
            executable: URL(fileURLWithPath: "/usr/bin/prlimit")
        )
        defer { serve.terminate() }
        #expect(await serve.waitForOutput(containing: "Or with curl"), "\(serve.errorOutput)")
        let limits = try String(contentsOfFile: "/proc/\(serve.process.processIdentifier)/limits", encoding: .utf8)
        let openFiles = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        #expect(openFiles.split(separator: " ").dropFirst(3).prefix(2) == ["4096", "4096"], "\(openFiles)")
        #expect(serve.errorOutput.contains("open-file limit raised") && serve.errorOutput.contains("from=512"), "\(serve.errorOutput)")
    }
}
