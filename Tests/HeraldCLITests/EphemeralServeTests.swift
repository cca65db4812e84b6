import Foundation
import HeraldTesting
import HeraldWire
import Testing

/// `herald serve --ephemeral --fixture F --ready-file R` as a CI job runs it, and `herald expect` against it
/// (docs/ci.md): the fixture's tokens the same every run, its fault rule by token name, the ready file's ports, CA, key
/// and admin token enough to send and assert, and the temporary data gone at exit.
@Suite struct EphemeralServeTests {
    static func fixture() throws -> String {
        let path = TemporaryPath.make("herald-fixture", suffix: ".json")
        try Data(
            #"""
            {"keys": [{"teamID": "TEAM123456", "keyID": "KEY1234567", "topics": ["com.example.app"]}],
             "tokens": [{"name": "alice", "topic": "com.example.app"}, {"name": "gone", "topic": "com.example.app"}],
             "policies": {"com.example.app": {"kind": "all", "cap": 100}},
             "faults": [{"match": {"token": "@gone"}, "action": {"kind": "answer", "status": 410, "timestamp": 1700000000000}}]}
            """#.utf8
        ).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Starts the ephemeral gateway and waits for its ready file.
    static let readyPath = TemporaryPath.make("herald-ready", suffix: ".json")

    static func start(fixture: String) async throws -> (HeraldProcess, JSONValue) {
        let ready = readyPath
        let serve = try HeraldProcess.start(["serve", "--ephemeral", "--quiet", "--fixture", fixture, "--ready-file", ready])
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: ready) { try await Task.sleep(for: .milliseconds(50)) }
        let data = try #require(FileManager.default.contents(atPath: ready), "\(serve.errorOutput)")
        return (serve, try JSONValue.parse(data))
    }

    @Test func aCIJobStartsSendsAndAsserts() async throws {
        let fixture = try Self.fixture()
        let (serve, ready) = try await Self.start(fixture: fixture)
        defer { serve.terminate() }
        let dataDir = try #require(ready["dataDir"]?.stringValue)
        #expect(ready["ephemeral"] == .bool(true) && dataDir.contains("herald-ephemeral-"))
        let tokens = try #require(ready["tokens"].flatMap { if case .array(let items) = $0 { items } else { nil } })
        let alice = try #require(tokens.first { $0["name"] == .string("alice") }?["token"]?.stringValue)
        let gone = try #require(tokens.first { $0["name"] == .string("gone") }?["token"]?.stringValue)
        let p8 = try #require(ready["keys"].flatMap { if case .array(let items) = $0 { items.first?["p8"]?.stringValue } else { nil } })
        let send = [
            "send", "--gateway", ready["provider"]?.stringValue ?? "", "--ca", ready["ca"]?.stringValue ?? "", "--p8", p8, "--key-id",
            "KEY1234567", "--team-id", "TEAM123456", "--topic", "com.example.app",
        ]
        let sent = try await CommandRunTests.run(send + ["--device", alice, "-"], input: #"{"aps":{"alert":{"title":"Hello"}}}"#)
        #expect(sent.status == 0 && sent.output.contains("status: 200"), "\(sent.output)\(sent.error)")
        let refused = try await CommandRunTests.run(send + ["--device", gone, "-"], input: #"{"aps":{"alert":"hi"}}"#)
        #expect(refused.output.contains("status: 410") && refused.output.contains("timestamp: 1700000000000"), "\(refused.output)")

        let expect = [
            "expect", "--console", ready["console"]?.stringValue ?? "", "--admin-token", ready["adminToken"]?.stringValue ?? "",
            "--token", alice,
        ]
        let found = try await CommandRunTests.run(expect + ["--payload-has", "/aps/alert/title=Hello", "--within", "3"])
        #expect(found.status == 0 && (try? JSONValue.parse(Data(found.output.utf8)))?["deviceToken"] == .string(alice), "\(found.error)")
        let missing = try await CommandRunTests.run(expect + ["--payload-has", "/aps/alert/title=Nope", "--within", "1"])
        #expect(missing.status == 1 && missing.error.contains("was accepted within 1.0 s") && missing.error.contains("/aps/alert/title=Nope"))
        let faulted = try await CommandRunTests.run(
            [
                "expect", "--console", ready["console"]?.stringValue ?? "", "--admin-token", ready["adminToken"]?.stringValue ?? "", "--token", gone,
                "--within", "1",
            ])
        #expect(faulted.status == 1, "a request a fault rule took is not accepted")

        // The same tokens on the next run; the data of this one, and its ready file, gone at exit.
        serve.terminate()
        _ = await serve.exitStatus()
        #expect(!FileManager.default.fileExists(atPath: dataDir))
        #expect(!FileManager.default.fileExists(atPath: Self.readyPath), "a harness waiting for the next run's file must not read this one")
        let (again, second) = try await Self.start(fixture: fixture)
        defer { again.terminate() }
        #expect(second["tokens"] == ready["tokens"] && second["dataDir"] != ready["dataDir"])
        again.terminate()
        _ = await again.exitStatus()
    }

    @Test func mistakesSayWhatToFix() async throws {
        let withDataDir = try await CommandRunTests.run(["serve", "--ephemeral", "--data-dir", "/tmp/x"])
        #expect(withDataDir.status == 64 && withDataDir.error.contains("--ephemeral makes its own temporary data directory; drop --data-dir"))
        let bad = TemporaryPath.make("herald-fixture", suffix: ".json")
        try Data(#"{"tokens": [{"topic": "com.example.app"}]}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let noName = try await CommandRunTests.run(["serve", "--ephemeral", "--quiet", "--fixture", bad])
        #expect(noName.status == 64 && noName.error.contains("tokens[0] needs \"token\" (hex) or \"name\""), "\(noName.error)")
        try Data(#"{"faults": [{"match": {"token": "@bob"}, "action": {"kind": "drop"}}]}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let unknown = try await CommandRunTests.run(["serve", "--ephemeral", "--quiet", "--fixture", bad])
        #expect(unknown.error.contains("faults[0].match.token @bob names no token of the fixture"), "\(unknown.error)")
    }
}
