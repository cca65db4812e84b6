import Foundation
import HeraldConsole
import HeraldDevice
import HeraldGateway
import HeraldGatewayTesting
import HeraldSpawn
import HeraldStore
import HeraldTesting
import HeraldWire
import NIOCore
import SwiftASN1
import Testing
import UserNotifications
import X509

/// The built `herald` binary, run as a user would.
@Suite struct CommandRunTests {
    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) async throws -> Run {
        let process = try HeraldProcess.start(arguments, input: input, environment: environment)
        let status = await process.exitStatus()
        return Run(status: status, output: process.output, error: process.errorOutput)
    }

    static func temporaryDirectory() -> String {
        TemporaryPath.make("herald-cli")
    }

    /// A gateway serving the store of a new data directory, as `herald serve --data-dir` would: what commands given
    /// that directory write, it sees within 100 ms.
    static func gatewayOnADataDirectory(
        configure: (inout GatewayConfiguration) -> Void = { _ in }
    ) async throws -> (data: String, store: SQLiteStore, gateway: TestGateway) {
        let data = temporaryDirectory()
        let directory = DataDirectory(path: data)
        try directory.prepare()
        let store = try SQLiteStore(path: directory.storePath)
        let gateway = try await TestGateway.start(store: store) {
            $0.directoryTimeToLive = .milliseconds(100)
            configure(&$0)
        }
        return (data, store, gateway)
    }

    /// Scripts tell whether a command exists from its help: a mistyped one must fail, not print serve's.
    @Test func aMistypedCommandFailsWithASuggestionInsteadOfRunningServe() async throws {
        let typo = try await Self.run(["sned", "--help"])
        #expect(typo.status == 64)
        #expect(typo.error.hasPrefix("Error: unknown command 'sned'; did you mean 'send'?\n"), "\(typo.error)")
        #expect(!typo.output.contains("--provider-port") && !typo.error.contains("--provider-port"))
        let bogus = try await Self.run(["bogus"])
        #expect(bogus.status == 64)
        #expect(bogus.error.hasPrefix("Error: unknown command 'bogus'\n"), "\(bogus.error)")
        let help = try await Self.run(["send", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--device"))
    }

    @Test func keysCreateWritesAPrivateKeyOnlyTheOwnerReads() async throws {
        let data = Self.temporaryDirectory()
        let keyPath = data + "-key.p8"
        let created = try await Self.run([
            "keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--topic", "com.example.app", "--out", keyPath,
        ])
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

    /// Apple never reuses a key id: registering one again would silently swap the key its tokens are checked with.
    @Test func keysCreateAndImportRefuseAKeyIDAlreadyRegistered() async throws {
        let data = Self.temporaryDirectory()
        let key = ["--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567"]
        #expect(try await Self.run(["keys", "create"] + key + ["--out", data + "-first.p8"]).status == 0)
        let firstPEM = try #require(try await SQLiteStore(path: DataDirectory(path: data).storePath).key(teamID: "TEAM123456", keyID: "KEY1234567"))
            .publicKeyPEM

        let again = try await Self.run(["keys", "create"] + key + ["--environment", "production", "--out", data + "-second.p8"])
        #expect(again.status == 64)
        #expect(
            again.error.contains("key KEY1234567 of team TEAM123456 is already registered in \(data) (development, all topics)"), "\(again.error)")
        #expect(again.error.contains("--replace"))
        #expect(!again.error.contains("Usage:"))  // the root command's usage would only mislead
        #expect(!FileManager.default.fileExists(atPath: data + "-second.p8"))
        let imported = try await Self.run(["keys", "import"] + key + ["--p8", data + "-first.p8"])
        #expect(imported.status == 64)
        let store = try SQLiteStore(path: DataDirectory(path: data).storePath)
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567")?.publicKeyPEM == firstPEM)
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567")?.environment == .development)

        let replaced = try await Self.run(["keys", "create"] + key + ["--replace", "--out", data + "-third.p8"])
        #expect(replaced.status == 0, "\(replaced.error)")
        #expect(try await store.key(teamID: "TEAM123456", keyID: "KEY1234567")?.publicKeyPEM != firstPEM)
    }

    /// `herald tokens retire` beside a running gateway writes only the store; the gateway tells the linked device.
    @Test func aTokenRetiredFromTheCommandLineReachesItsLinkedDevice() async throws {
        let (data, _, gateway) = try await Self.gatewayOnADataDirectory()
        let device = try await TestDevice.connect(to: gateway)
        let token = try await device.register(TestGateway.topic)
        let retired = try await Self.run(["tokens", "retire", "--data-dir", data, "--device", token])
        #expect(retired.status == 0, "\(retired.error)")
        #expect(try await device.next() == .unregistered(topic: TestGateway.topic, deviceToken: token))
        await device.leave()
        try await gateway.stop()
    }

    /// A mistyped `--data-dir`: commands that act on what is there refuse it; commands that add something create
    /// it and say so.
    @Test func aMissingDataDirectoryIsNamed() async throws {
        let data = Self.temporaryDirectory()
        for command in [
            ["keys", "list"], ["tokens", "retire", "--device", String(repeating: "ab", count: 32)], ["policy", "--topic", "com.example.app"],
        ] {
            let result = try await Self.run(command + ["--data-dir", data])
            #expect(result.status == 64)
            #expect(result.error.contains("no Herald data in \(data): check --data-dir"), "\(command): \(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: data))

        let issued = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.app"])
        #expect(issued.status == 0)
        #expect(issued.error.contains("note: using a new data directory, \(data)"))
        let second = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.app"])
        #expect(second.error.isEmpty)
    }

    @Test func keysCreateSaysWhyItCannotWriteTheKey() async throws {
        let data = Self.temporaryDirectory()
        let out = data + "-missing/key.p8"
        let result = try await Self.run(["keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--out", out])
        #expect(result.status == 64)
        #expect(result.error.contains("cannot write \(out): there is no directory \(data)-missing"), "\(result.error)")
        // Nothing registered for a private key that was never written.
        #expect(try await Self.run(["keys", "list", "--data-dir", data]).output.isEmpty)

        let certificate = try await Self.run([
            "certs", "create", "--data-dir", data, "--topic", "com.example.app", "--out", out, "--key-out", out + ".key",
        ])
        #expect(certificate.status != 0)
        #expect(certificate.error.contains("cannot write \(out).key: there is no directory \(data)-missing"), "\(certificate.error)")
    }

    /// A token is issued for the app's bundle id; the push type's suffix belongs on `apns-topic` only.
    /// `herald console password` keeps only a hash; a short password is refused and nothing is written.
    @Test func consolePasswordIsHashedAndAShortOneRefused() async throws {
        let data = Self.temporaryDirectory()
        let short = try await Self.run(["console", "password", "--data-dir", data], input: "too short\n")
        #expect(short.status != 0 && short.error.contains("at least 12 characters"), "\(short.error)")
        #expect(!FileManager.default.fileExists(atPath: ConsolePassword.path(in: DataDirectory(path: data))))

        let set = try await Self.run(["console", "password", "--data-dir", data], input: "correct horse battery\n")
        #expect(set.status == 0, "\(set.error)")
        let kept = try String(contentsOfFile: ConsolePassword.path(in: DataDirectory(path: data)), encoding: .utf8)
        #expect(kept.hasPrefix("scrypt$") && !kept.contains("horse"))
        let removed = try await Self.run(["console", "password", "--data-dir", data, "--remove"])
        #expect(removed.output.contains("removed the console password"))
    }

    /// `--count` issues that many distinct tokens, a line each, every one a device the store knows.
    @Test func tokensIssueCountIssuesThatManyTokens() async throws {
        let data = Self.temporaryDirectory()
        let result = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.app", "--count", "25"])
        #expect(result.status == 0, "\(result.error)")
        let tokens = result.output.split(separator: "\n").map(String.init)
        #expect(tokens.count == 25 && Set(tokens).count == 25)
        let store = try SQLiteStore(path: DataDirectory(path: data).storePath)
        for token in tokens {
            #expect(try await store.device(try #require(DeviceToken(hex: token)))?.topic == "com.example.app")
        }
    }

    @Test func tokensIssueNotesATopicWithAPushTypeSuffix() async throws {
        let data = Self.temporaryDirectory()
        let result = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.app.voip"])
        #expect(result.status == 0)
        #expect(result.error.contains("note: com.example.app.voip ends in voip's topic suffix; if the app is com.example.app"), "\(result.error)")
    }

    @Test func revokingAMissingKeySaysHowToFindKeys() async throws {
        let data = Self.temporaryDirectory()
        #expect(
            try await Self.run(["keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY7654321", "--out", data + "-key.p8"])
                .status == 0)
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
        let missing = try await Self.run([
            "keys", "import", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEY1234567", "--p8", data + "-none.p8",
        ])
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

    /// Every PEM file Herald writes ends in a newline, so `cat cert.pem key.pem > apns.pem` makes a file TLS
    /// libraries read: `herald send` authenticates with the joined file alone, as with its two halves.
    @Test func pemFilesJoinWithCat() async throws {
        let (data, _, gateway) = try await Self.gatewayOnADataDirectory()
        let (certificate, key, p8) = (data + "/cert.pem", data + "/key.pem", data + "/key.p8")
        // Issued by the gateway's own CA, which client certificates must chain to.
        let issued = try await Self.run([
            "certs", "create", "--data-dir", gateway.directory.path, "--topic", "com.example.joined", "--out", certificate, "--key-out", key,
        ])
        #expect(issued.status == 0, "\(issued.error)")
        #expect(
            try await Self.run(["keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEYJOINED1", "--out", p8]).status == 0)
        for path in [certificate, key, p8, gateway.caPath, LocalCertificateAuthority(dataDirectory: gateway.directory).serverCertificatePath] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasSuffix("-----\n") && !text.hasSuffix("\n\n"), "\(path) does not end in one newline")
        }
        let joined = data + "/apns.pem"
        try (Data(contentsOf: URL(fileURLWithPath: certificate)) + Data(contentsOf: URL(fileURLWithPath: key))).write(
            to: URL(fileURLWithPath: joined))
        let token = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.joined"]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let common = [
            "send", "--gateway", gateway.url.absoluteString, "--ca", gateway.caPath, "--topic", "com.example.joined", "--device", token, "-",
        ]
        for authentication in [["--cert", joined, "--cert-key", joined], ["--cert", joined], ["--cert", certificate, "--cert-key", key]] {
            let sent = try await Self.run(common + authentication, input: #"{"aps":{"alert":"joined"}}"#)
            #expect(sent.status == 0 && sent.output.contains("status: 200"), "\(authentication): \(sent.output) \(sent.error)")
        }
        let keyless = try await Self.run(common + ["--cert", certificate], input: #"{"aps":{"alert":"joined"}}"#)
        #expect(keyless.status != 0)
        #expect(keyless.error.contains("give the certificate's key with --cert-key, or join them"), "\(keyless.error)")
        try await gateway.stop()
    }

    /// `herald send` to a gateway named by its IPv4 or IPv6 address; without the gateway's CA it says so once, in
    /// words, and does not retry what no retry can fix.
    @Test(arguments: [("127.0.0.1", "127.0.0.1"), ("::1", "[::1]")])
    func sendReachesAGatewayByAddressAndSaysAnUntrustedOneOnce(listening host: String, url: String) async throws {
        let (data, _, gateway) = try await Self.gatewayOnADataDirectory { $0.host = host }
        let keyPath = data + "/key.p8"
        #expect(
            try await Self.run(["keys", "create", "--data-dir", data, "--team-id", "TEAM123456", "--key-id", "KEYADDRESS", "--out", keyPath]).status
                == 0)
        let token = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.address"]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let common = [
            "send", "--gateway", "https://\(url):\(gateway.gateway.providerPort)", "--p8", keyPath, "--key-id", "KEYADDRESS",
            "--team-id", "TEAM123456", "--topic", "com.example.address", "--device", token, "-",
        ]
        let sent = try await Self.run(common + ["--ca", gateway.caPath], input: #"{"aps":{"alert":"by address"}}"#)
        #expect(sent.status == 0 && sent.output.contains("status: 200"), "\(sent.output) \(sent.error)")

        let untrusted = try await Self.run(common, input: #"{"aps":{"alert":"by address"}}"#)
        #expect(untrusted.status == 1)
        let lines = untrusted.error.split(separator: "\n")
        #expect(lines.count == 1, "\(untrusted.error)")
        #expect(untrusted.error.contains("the gateway's certificate is not signed by the CA you trust (the system's CAs)"), "\(untrusted.error)")
        #expect(untrusted.error.contains("pass --ca"), "\(untrusted.error)")
        #expect(!untrusted.error.contains("CERTIFICATE_VERIFY_FAILED"), "\(untrusted.error)")
        try await gateway.stop()
    }

    /// `certs create --host` issues a server certificate for names and addresses, which `serve --tls-cert` serves.
    @Test func certsCreateIssuesServerCertificatesForAddresses() async throws {
        let data = Self.temporaryDirectory()
        let (certificate, key) = (data + "-server.pem", data + "-server-key.pem")
        let issued = try await Self.run([
            "certs", "create", "--data-dir", data, "--host", "192.0.2.44", "--host", "[2001:db8::7]",
            "--host", "gateway.lan", "--out", certificate, "--key-out", key,
        ])
        #expect(issued.status == 0, "\(issued.error)")
        #expect(issued.output.contains("serve it with --tls-cert \(certificate) --tls-key \(key)"))
        let parsed = try Certificate(pemEncoded: String(contentsOfFile: certificate, encoding: .utf8))
        let names = try #require(try parsed.extensions.subjectAlternativeNames).map { name -> String in
            switch name {
            case .dnsName(let dns): dns
            case .ipAddress(let bytes): bytes.bytes.map(String.init).joined(separator: ".")
            default: "\(name)"
            }
        }
        #expect(names == ["192.0.2.44", "32.1.13.184.0.0.0.0.0.0.0.0.0.0.0.7", "gateway.lan"])

        let both = try await Self.run([
            "certs", "create", "--data-dir", data, "--host", "gateway.lan", "--topic", "com.example.app", "--out", certificate, "--key-out", key,
        ])
        #expect(both.status != 0 && both.error.contains("give one kind"), "\(both.error)")
        let bad = try await Self.run(["certs", "create", "--data-dir", data, "--host", "not a host", "--out", certificate, "--key-out", key])
        #expect(bad.status != 0 && bad.error.contains("neither an IP address nor a host name"), "\(bad.error)")
    }

    /// `keys create` and `tokens issue` against a data directory a gateway is serving from, then `send`.
    @Test func sendPushesThroughARunningGatewayAndReportsReasons() async throws {
        let (data, store, gateway) = try await Self.gatewayOnADataDirectory()
        let keyPath = data + "/cli-key.p8"
        #expect(
            try await Self.run(["keys", "create", "--data-dir", data, "--team-id", "CLITEAM001", "--key-id", "CLIKEY0001", "--out", keyPath]).status
                == 0)
        let token = try await Self.run(["tokens", "issue", "--data-dir", data, "--topic", "com.example.cli"]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let common = [
            "send", "--gateway", gateway.url.absoluteString, "--ca", gateway.caPath, "--p8", keyPath,
            "--key-id", "CLIKEY0001", "--team-id", "CLITEAM001", "--device", token,
        ]

        let sent = try await Self.run(common + ["--topic", "com.example.cli", "--collapse-id", "c1", "-"], input: #"{"aps":{"alert":"hi"}}"#)
        #expect(sent.status == 0, "\(sent.error)")
        #expect(sent.output.contains("status: 200"))
        let uniqueID = try #require(
            sent.output.split(separator: "\n").first { $0.hasPrefix("apns-unique-id: ") }.flatMap { APNsID.parse($0.dropFirst(16)) })
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
        let serve = try HeraldProcess.start([
            "serve", "--data-dir", data, "--provider-port", "0", "--device-port", "0", "--console-port", "0", "--channels-port", "0",
            "--webpush-port", "0", "--plaintext",
        ])
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

    /// The socket's own error does not say which of the four ports is taken.
    @Test func serveNamesAPortInUseAndTheFlagThatMovesIt() async throws {
        let busy = try await TestGateway.start { $0.plaintext = true }
        let port = String(busy.gateway.providerPort)
        let listeners = [
            ("--provider-port", "provider API"), ("--console-port", "console"), ("--device-port", "device link"),
            ("--channels-port", "channel management API"),
        ]
        for (flag, listener) in listeners {
            var arguments = [
                "serve", "--data-dir", CommandRunTests.temporaryDirectory(), "--quiet",
                "--provider-port", "0", "--console-port", "0", "--device-port", "0", "--channels-port", "0", "--webpush-port", "0",
            ]
            arguments[arguments.firstIndex(of: flag)! + 1] = port
            let result = try await CommandRunTests.run(arguments)
            #expect(result.status == 1)
            #expect(result.error.contains("Error: cannot listen on 127.0.0.1:\(port) for the \(listener): the port is in use"), "\(result.error)")
            #expect(result.error.contains("choose another with \(flag)"))
            #expect(!result.error.contains("warning"))
        }
        try await busy.stop()
    }

    @Test func serveNamesATLSFileItCannotUse() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let result = try await CommandRunTests.run(["serve", "--data-dir", data, "--tls-cert", data + "-none.pem", "--tls-key", data + "-none.key"])
        #expect(result.status == 1)
        #expect(
            result.error.contains("cannot use \(data)-none.pem as the TLS certificate chain (--tls-cert): no such file or not readable"),
            "\(result.error)")
    }

    /// Each device link is an open file: started under a soft limit of 512, the gateway raises it to the hard one.
    @Test func serveRaisesTheOpenFileLimitToTheHardLimit() async throws {
        let data = CommandRunTests.temporaryDirectory()
        let serve = try HeraldProcess.start(
            [
                "--nofile=512:4096", HeraldProcess.binary.path, "serve", "--data-dir", data, "--provider-port", "0",
                "--device-port", "0", "--console-port", "0", "--channels-port", "0", "--webpush-port", "0", "--plaintext",
            ],
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
